import type { SmtpMessage } from '../smtp-load.js';

export type { SmtpMessage } from '../smtp-load.js';

const WORDS = (
  'the quarterly figures are attached as agreed please find the summary below and let me know ' +
  'if anything is missing before friday we will review the numbers with the team next week'
).split(' ');

/** Lines of filler text (at most 76 characters, none starting with a dot) of about `bytes` in all. */
function filler(bytes: number, seed: number, wrap: (line: string) => string = (line) => line): string[] {
  const lines: string[] = [];
  let size = 0;
  let word = seed % WORDS.length;
  while (size < bytes) {
    let line = '';
    while (line.length < 60) line += `${line ? ' ' : ''}${WORDS[word++ % WORDS.length]}`;
    const wrapped = wrap(line);
    lines.push(wrapped);
    size += wrapped.length + 2;
  }
  return lines;
}

/**
 * `count` messages of about `size` bytes each, as inbound mail usually is: multipart/alternative
 * with a text and an HTML part, a unique Message-ID, from `from` to `<local><i>@<domain>`.
 */
export function buildMessages(
  count: number,
  size: number,
  options: { from: string; domain: string; tag: string },
): SmtpMessage[] {
  const date = new Date().toUTCString().replace('GMT', '+0000');
  const messages: SmtpMessage[] = [];
  for (let i = 0; i < count; i++) {
    const to = `user${i}@${options.domain}`;
    const boundary = `----=_bench_${options.tag}_${i}`;
    const head = [
      `Received: from client.bench.test (client.bench.test [127.0.0.1]) by relay.sender.bench.test; ${date}`,
      `From: Sender Name <${options.from}>`,
      `To: <${to}>`,
      `Subject: Inbound benchmark message ${options.tag} ${i}`,
      `Date: ${date}`,
      `Message-ID: <${options.tag}.${i}@sender.bench.test>`,
      'MIME-Version: 1.0',
      `Content-Type: multipart/alternative; boundary="${boundary}"`,
      '',
      `--${boundary}`,
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: 7bit',
      '',
    ];
    const middle = [`--${boundary}`, 'Content-Type: text/html; charset=utf-8', 'Content-Transfer-Encoding: 7bit', ''];
    const tail = [`--${boundary}--`, ''];
    const overhead = [...head, ...middle, ...tail].reduce((sum, line) => sum + line.length + 2, 0);
    const room = Math.max(0, size - overhead);
    const text = filler(room * 0.4, i);
    const html = filler(room * 0.6, i + 7, (line) => `<p>${line}</p>`);
    const mime = [...head, ...text, ...middle, ...html, ...tail].join('\r\n');
    messages.push({ from: options.from, to, data: Buffer.from(`${mime}.\r\n`, 'latin1') });
  }
  return messages;
}

/** Mean size of the messages themselves (without the end-of-data dot line). */
export const meanBytes = (messages: SmtpMessage[]) =>
  messages.reduce((sum, message) => sum + message.data.length - 3, 0) / Math.max(1, messages.length);
