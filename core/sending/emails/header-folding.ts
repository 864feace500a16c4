/**
 * RFC 5322 line limits for the header block nodemailer builds: no line may exceed 998 octets
 * (plus CRLF). nodemailer folds at whitespace only, so a run without whitespace longer than a
 * line (a long subject word, a display name of one long word, a long custom value) left it
 * over the limit. A field with such a line is re-written here, keeping what it says:
 * - in unstructured fields (Subject, custom headers), every long run becomes RFC 2047
 *   encoded-words (UTF-8, base64), which decode back to the same text;
 * - in address fields, a long display name (quoted-string or atom, outside the angle-addr)
 *   becomes encoded-words the same way (RFC 2047 allows them in a phrase, not in a quoted-string);
 * then the field is folded at whitespace into lines of at most 78 characters where it can be.
 * Fields already within the limit are left byte for byte as nodemailer wrote them.
 */
export const MAX_LINE_OCTETS = 998;
/** A run this long is encoded: it could not share a folded line with its field name otherwise. */
const LONG_RUN = 60;
/** Bytes per encoded-word: 45 bytes are 60 base64 characters, 72 with the =?UTF-8?B?...?= frame. */
const WORD_BYTES = 45;
const ADDRESS_FIELDS = new Set(['from', 'sender', 'to', 'cc', 'bcc', 'reply-to']);

/** Re-writes the fields of a header block (CRLF-separated, folded) that have an over-long line. */
export function withinLineLimits(block: string): string {
  if (!hasLongLine(block)) return block;
  return splitFields(block)
    .map((field) => (hasLongLine(field) ? refold(field) : field))
    .join('\r\n');
}

export function hasLongLine(text: string): boolean {
  let start = 0;
  for (;;) {
    const end = text.indexOf('\r\n', start);
    const length = Buffer.byteLength(end === -1 ? text.slice(start) : text.slice(start, end));
    if (length > MAX_LINE_OCTETS) return true;
    if (end === -1) return false;
    start = end + 2;
  }
}

/** A header block into its fields, each with its continuation lines. */
function splitFields(block: string): string[] {
  const fields: string[] = [];
  for (const line of block.split('\r\n')) {
    if ((line.startsWith(' ') || line.startsWith('\t')) && fields.length > 0)
      fields[fields.length - 1] += `\r\n${line}`;
    else fields.push(line);
  }
  return fields;
}

function refold(field: string): string {
  const unfolded = field.replace(/\r\n(?=[ \t])/g, '');
  const colon = unfolded.indexOf(':');
  const name = unfolded.slice(0, colon);
  const value = unfolded.slice(colon + 1).trim();
  const tokens = ADDRESS_FIELDS.has(name.toLowerCase())
    ? addressTokens(value)
    : value
        .split(/[ \t]+/)
        .map((run) => (run.length > LONG_RUN ? encodedWords(run) : [run]))
        .flat();
  return fold(`${name}:`, tokens);
}

/**
 * An address list's tokens, with long display names as encoded-words. Quoted-strings and
 * angle-addrs are kept whole (an address itself cannot be folded, and is far below the limit).
 */
function addressTokens(value: string): string[] {
  const tokens: string[] = [];
  const pattern = /"(?:[^"\\]|\\.)*"|<[^>]*>,?|[^\s"<]+/g;
  for (const match of value.matchAll(pattern)) {
    const token = match[0];
    if (token.startsWith('"') && token.length > LONG_RUN)
      tokens.push(...encodedWords(token.slice(1, -1).replace(/\\(.)/g, '$1')));
    else if (!token.startsWith('<') && !token.startsWith('"') && token.length > LONG_RUN && !token.startsWith('=?'))
      tokens.push(...encodedWords(token));
    else tokens.push(token);
  }
  return tokens;
}

/** Text as UTF-8 base64 encoded-words of at most WORD_BYTES bytes each, never splitting a character. */
export function encodedWords(text: string): string[] {
  const words: string[] = [];
  let chunk = '';
  for (const char of text) {
    if (Buffer.byteLength(chunk + char) > WORD_BYTES) {
      words.push(encodeWord(chunk));
      chunk = '';
    }
    chunk += char;
  }
  if (chunk !== '') words.push(encodeWord(chunk));
  return words;
}

const encodeWord = (text: string) => `=?UTF-8?B?${Buffer.from(text).toString('base64')}?=`;

/** Joins tokens with single spaces, starting a new line (CRLF SP) before one that would pass 78. */
function fold(head: string, tokens: string[]): string {
  const lines: string[] = [];
  let line = head;
  for (const token of tokens) {
    if (line.length + 1 + token.length > 78 && line !== head && line.trim() !== '') {
      lines.push(line);
      line = ` ${token}`;
    } else {
      line += ` ${token}`;
    }
  }
  lines.push(line);
  return lines.join('\r\n');
}
