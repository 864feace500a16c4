/** One message as every relay gets it: envelope and the DATA bytes (dot-stuffed, ending CRLF.CRLF). */
export type RelayMessage = { from: string; to: string; data: Buffer };

export const SENDER_DOMAIN = 'bench.test';
export const SENDER = `bench@${SENDER_DOMAIN}`;
export const SINK_DOMAIN = 'sink.test';

const LINE = 'The quick brown fox jumps over the lazy dog while the relay signs and forwards it.';

/**
 * `count` plain-text messages of about `size` bytes (headers included) from bench@bench.test
 * to distinct recipients at `domain`: the same bytes for every relay but for the recipient and
 * the tag in Subject and Message-ID. Lines are short ASCII (7bit), so no relay re-encodes them.
 */
export function buildMessages(count: number, size: number, tag: string, domain = SINK_DOMAIN): RelayMessage[] {
  const messages: RelayMessage[] = [];
  const date = new Date().toUTCString().replace('GMT', '+0000');
  for (let i = 0; i < count; i++) {
    const to = `${tag}-${i}@${domain}`;
    const headers = [
      `From: Bench <${SENDER}>`,
      `To: <${to}>`,
      `Subject: Relay benchmark ${tag} ${i}`,
      `Date: ${date}`,
      `Message-ID: <${tag}.${i}.${process.pid}@${SENDER_DOMAIN}>`,
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=us-ascii',
      'Content-Transfer-Encoding: 7bit',
    ].join('\r\n');
    const lines: string[] = [];
    let length = headers.length + 4;
    for (let n = 0; length < size; n++) {
      const line = `${String(n).padStart(5, '0')} ${LINE}`;
      lines.push(line);
      length += line.length + 2;
    }
    // No line starts with a dot: the bytes need no dot-stuffing.
    messages.push({ from: SENDER, to, data: Buffer.from(`${headers}\r\n\r\n${lines.join('\r\n')}\r\n.\r\n`) });
  }
  return messages;
}

/** Average message size on the wire (without the final dot line). */
export const meanBytes = (messages: RelayMessage[]) =>
  messages.reduce((sum, m) => sum + m.data.length - 3, 0) / Math.max(1, messages.length);
