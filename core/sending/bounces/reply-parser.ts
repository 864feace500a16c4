import type { ParsedReply, ReplyInput } from './bounce.types.js';

// '550-5.1.1 text', '550 text', '550' alone; the enhanced code optionally behind a '#' (qmail).
const REPLY_LINE = /^(\d{3})(?:[ -](.*))?$/;
const ENHANCED_CODE = /^#?([245]\.\d{1,3}\.\d{1,3})(?:\s+|$)/;

/**
 * Reduces a reply to code, enhanced code and one line of text. Multi-line replies repeat the
 * code (and usually the enhanced code) on every line ('550-5.1.1 ...\n550-5.1.1 ...\n550 5.1.1
 * ...'): those prefixes go, the texts are joined with a space. A structured reply whose text
 * still starts with its own code (nodemailer's response string) is handled the same way.
 */
export function parseReply(reply: ReplyInput): ParsedReply {
  const structured = typeof reply !== 'string';
  let code = structured ? reply.code : 0;
  let enhanced = structured ? (reply.enhanced ?? null) : null;
  const texts: string[] = [];
  for (const line of (structured ? reply.text : reply).split(/\r?\n/)) {
    let rest = line.trim();
    const prefix = REPLY_LINE.exec(rest);
    if (prefix && (code === 0 || Number(prefix[1]) === code)) {
      code = Number(prefix[1]);
      rest = (prefix[2] ?? '').trim();
    }
    const status = ENHANCED_CODE.exec(rest);
    if (status && (enhanced === null || status[1] === enhanced)) {
      enhanced = status[1]!;
      rest = rest.slice(status[0].length);
    }
    if (rest !== '') texts.push(rest);
  }
  return { code, enhanced, text: texts.join(' ').replace(/\s+/g, ' ').trim() };
}

/** What the rules are tested against: '<code> <enhanced or -> <text>'. */
export function matchText(reply: ParsedReply): string {
  return `${reply.code} ${reply.enhanced ?? '-'} ${reply.text}`;
}

/** RFC 3464 Diagnostic-Code form, as the SDK family's bounce events carry it. */
export function diagnosticCode(reply: ParsedReply): string {
  return `smtp; ${reply.code} ${reply.enhanced ? `${reply.enhanced} ` : ''}${reply.text}`.trimEnd();
}
