/**
 * A header block split into fields the way mailparser's splitter (mailsplit) splits it: one field
 * per unfolded line, the key lower-cased, the value unfolded and trimmed (libmime.decodeHeader).
 * Only for the plain case: CRLF line ends, 7-bit bytes, every field with a name and a colon.
 * Anything else answers null, and the caller parses the message with mailparser itself, so a
 * message this reads differently from mailparser is never read here.
 */
export type HeaderField = { key: string; value: string };

/** RFC 5322 field names: printable ASCII but the colon (mailparser would keep odd ones too). */
const FIELD_NAME = /^[!-9;-~]+$/;

/** Lines of a 7-bit CRLF text, or null when it has a bare CR, a bare LF or an 8-bit byte. */
export function crlfLines(text: string): string[] | null {
  const lines = text.split('\r\n');
  for (const line of lines) if (/[\r\n\x80-\xff]/.test(line)) return null;
  return lines;
}

/** The fields of header lines (up to, not including, the empty line that ends them). */
export function headerFields(lines: string[]): HeaderField[] | null {
  const fields: HeaderField[] = [];
  let current: string | null = null;
  const push = (line: string): boolean => {
    const colon = line.indexOf(':');
    const key = line.slice(0, colon).trim().toLowerCase();
    if (colon < 0 || !FIELD_NAME.test(key)) return false;
    fields.push({
      key,
      value: line
        .slice(colon + 1)
        .replace(/\r\n[ \t]*/g, ' ')
        .trim(),
    });
    return true;
  };
  for (const line of lines) {
    if (line.startsWith(' ') || line.startsWith('\t')) {
      // A continuation of the field before; the first line of a block cannot be one.
      if (current === null) return null;
      current += `\r\n${line}`;
      continue;
    }
    if (current !== null && !push(current)) return null;
    // mailsplit takes a first line "From ..." (mbox) or "POST ..." as a preamble, not a field.
    if (current === null && /^(From|POST) /i.test(line)) return null;
    current = line;
  }
  if (current !== null && !push(current)) return null;
  return fields;
}

/** The first field named `key` (mailparser keeps the first of the single-valued fields). */
export const firstField = (fields: HeaderField[], key: string) => fields.find((field) => field.key === key);

/** Every field named `key`, in order. */
export const allFields = (fields: HeaderField[], key: string) => fields.filter((field) => field.key === key);
