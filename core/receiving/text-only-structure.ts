import { firstField, headerFields, type HeaderField } from './header-block.js';

/**
 * Whether a message certainly has no attachment in mailparser's sense, read from its MIME
 * structure alone (no body decoded): every leaf part is text/plain or text/html, inline or without
 * a disposition, in multiparts with clean delimiters. It answers false for anything it does not
 * read exactly as mailparser does (a disposition other than inline, another type, a part without
 * a Content-Type, a delimiter line with anything after it, a missing close delimiter, comments,
 * RFC 2231 or encoded parameters, deep nesting, many parts): the caller then runs mailparser.
 */
export function isTextOnly(rootFields: HeaderField[], bodyLines: string[]): boolean {
  const budget = { parts: MAX_PARTS };
  return textOnlyNode(rootFields, bodyLines, 0, true, budget);
}

/** Past these the fast path gives up and mailparser (with its own limits) reads the message. */
const MAX_DEPTH = 4;
const MAX_PARTS = 32;

const TOKEN_TYPE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/;
/** RFC 2046 boundary characters, without a trailing space. */
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=?]([0-9A-Za-z'()+_,\-./:=? ]{0,68}[0-9A-Za-z'()+_,\-./:=?])?$/;

function textOnlyNode(
  fields: HeaderField[],
  body: string[],
  depth: number,
  root: boolean,
  budget: { parts: number },
): boolean {
  if (--budget.parts < 0 || depth > MAX_DEPTH) return false;
  if (fields.filter((f) => f.key === 'content-type' || f.key === 'content-disposition').length > 2) return false;
  const disposition = firstField(fields, 'content-disposition');
  const typeField = firstField(fields, 'content-type');
  if (typeField && /[()\\*]|=\?/.test(typeField.value)) return false;
  const type = typeField ? typeField.value.split(';')[0]!.trim().toLowerCase() : root ? 'text/plain' : '';
  if (!TOKEN_TYPE.test(type)) return false;
  if (type.startsWith('multipart/')) {
    if (disposition || type === 'multipart/digest') return false;
    const boundary = boundaryOf(typeField!.value);
    const children = boundary ? splitParts(body, boundary) : null;
    if (!children || children.length === 0) return false;
    return children.every((child) => {
      const blank = child.indexOf('');
      const childFields = blank < 0 ? null : headerFields(child.slice(0, blank));
      return childFields !== null && textOnlyNode(childFields, child.slice(blank + 1), depth + 1, false, budget);
    });
  }
  if (type !== 'text/plain' && type !== 'text/html') return false;
  // A name parameter is how some clients mark a text attachment: leave it to mailparser.
  if (/;\s*name\s*=/i.test(typeField?.value ?? '')) return false;
  if (!disposition) return true;
  return !/[()\\*]|=\?/.test(disposition.value) && disposition.value.split(';')[0]!.trim().toLowerCase() === 'inline';
}

/** The boundary parameter, quoted or not; null when absent, repeated or unusual. */
function boundaryOf(contentType: string): string | null {
  const matches = [...contentType.matchAll(/;\s*boundary\s*=\s*(?:"([^"]*)"|([^\s;"]+))/gi)];
  if (matches.length !== 1) return null;
  const value = matches[0]![1] ?? matches[0]![2] ?? '';
  return BOUNDARY.test(value) ? value : null;
}

/**
 * The parts between `--boundary` delimiter lines, up to the `--boundary--` close; null when a line
 * starts like a delimiter without being exactly one, when the close is missing, or when anything
 * but empty lines follows it (mailsplit reads each of those in its own way).
 */
function splitParts(lines: string[], boundary: string): string[][] | null {
  const open = `--${boundary}`;
  const close = `${open}--`;
  const parts: string[][] = [];
  let current: string[] | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trimStart().startsWith(open)) {
      if (line === open) {
        if (current) parts.push(current);
        current = [];
        continue;
      }
      if (line !== close || !current) return null;
      parts.push(current);
      return lines.slice(i + 1).every((rest) => rest.trim() === '') ? parts : null;
    }
    current?.push(line);
  }
  return null;
}
