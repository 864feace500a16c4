/**
 * A small MIME reader for delivery and feedback reports. mailparser's simpleParser is made
 * for showing a message: it merges every inline text part into one text and treats message/*
 * parts as attachments or parses them, so the part boundaries that RFC 3464 and RFC 5965
 * reports are made of (human text, machine-readable fields, returned original) are lost.
 * Reports need each leaf part with its type and decoded text and nothing more, read within
 * fixed bounds so that a hostile or huge message costs little. Pure: no I/O.
 */

/**
 * Bytes of a message that are read. The machine-readable parts and the returned original's
 * headers come first; what follows is the original's body, of no use to a report parser.
 */
const MAX_MESSAGE_BYTES = 1024 * 1024;
/** Characters of one part's decoded text that are read (and searched by the parsers). */
const MAX_PART_CHARS = 256 * 1024;
const MAX_PARTS = 64;
const MAX_DEPTH = 8;

/** One header field; the name lower-case, the value unfolded with its whitespace collapsed. */
export type HeaderField = { name: string; value: string };

export type MimePart = {
  /** Lower-case media type, 'text/plain' when the part does not say (RFC 2045 5.2). */
  type: string;
  /** Content-Type parameters, lower-case names. */
  params: Record<string, string>;
  headers: HeaderField[];
  /** The body, transfer-decoded and charset-decoded, at most MAX_PART_CHARS. */
  text: string;
};

/** The top-level entity's headers and type, and its leaf parts in order (itself when not multipart). */
export type MimeMessage = { headers: HeaderField[]; type: string; params: Record<string, string>; parts: MimePart[] };

type Entity = { headers: HeaderField[]; type: string; params: Record<string, string>; body: string };

// RFC 5322 field name: printable characters but the colon.
const FIELD_LINE = /^([!-9;-~]+)[ \t]*:[ \t]*(.*)$/;
const MEDIA_TYPE = /^[\w.+-]+\/[\w.+-]+$/;
const PARAMETER = /([^\s;=]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)/g;
const ENCODED_WORD = /=\?([^?\s]+)\?([BbQq])\?([^?\s]*)\?=/g;

/**
 * Fields of a header block (or of a message/delivery-status or feedback-report block): folded
 * lines joined, lines that are no field and do not continue one skipped.
 */
export function parseFields(block: string): HeaderField[] {
  const fields: HeaderField[] = [];
  let last: HeaderField | null = null;
  for (const line of block.split('\n')) {
    if (last && /^[ \t]/.test(line)) {
      last.value += ` ${line}`;
      continue;
    }
    const match = FIELD_LINE.exec(line);
    last = match ? { name: match[1]!.toLowerCase(), value: match[2]! } : null;
    if (last) fields.push(last);
  }
  for (const field of fields) field.value = field.value.replace(/\s+/g, ' ').trim();
  return fields;
}

/** A block of lines that are all header fields or their continuations. */
function isFieldBlock(block: string): boolean {
  const lines = block.trimEnd().split('\n');
  return FIELD_LINE.test(lines[0]!) && lines.every((line) => FIELD_LINE.test(line) || /^[ \t]+\S/.test(line));
}

/**
 * The blocks of a text part that hold header fields only, among its first few paragraphs:
 * field blocks that some providers send as text/plain instead of their own media type.
 */
export function fieldBlocks(text: string, paragraphs = 8): HeaderField[][] {
  return text
    .replace(/^\s+/, '')
    .split(/\n[ \t]*\n/, paragraphs)
    .filter(isFieldBlock)
    .map(parseFields);
}

export function fieldValue(fields: readonly HeaderField[], name: string): string | undefined {
  return fields.find((field) => field.name === name)?.value;
}

export function fieldValues(fields: readonly HeaderField[], name: string): string[] {
  return fields.filter((field) => field.name === name).map((field) => field.value);
}

/** Name -> value with encoded words decoded; a repeated field keeps its first (topmost) value. */
export function fieldRecord(fields: readonly HeaderField[]): Record<string, string> {
  const record: Record<string, string> = {};
  for (const field of fields) if (!(field.name in record)) record[field.name] = decodeWords(field.value);
  return record;
}

function decodeCharset(bytes: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder((charset ?? 'utf-8').trim() || 'utf-8').decode(bytes);
  } catch {
    // An unknown label (or UTF-7, which TextDecoder lacks): UTF-8 keeps ASCII readable.
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/** RFC 2047 encoded words; whitespace between two adjacent ones is not part of the text. */
export function decodeWords(value: string): string {
  if (!value.includes('=?')) return value;
  return value
    .replace(/(\?=)[ \t]+(?==\?)/g, '$1')
    .replace(ENCODED_WORD, (word, charset: string, encoding: string, text: string) => {
      const bytes =
        encoding.toUpperCase() === 'B'
          ? Buffer.from(text, 'base64')
          : Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, hexByte), 'latin1');
      const label = charset.split('*')[0]; // RFC 2231 language suffix: 'utf-8*en'
      return label ? decodeCharset(bytes, label) : word;
    });
}

const hexByte = (_: string, hex: string) => String.fromCharCode(parseInt(hex, 16));

function decodeQuotedPrintable(body: string): Buffer {
  // trimEnd, not a /[ \t]+$/ regex: that one is quadratic on a long run of blanks.
  const joined = body
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/=\n/g, '');
  return Buffer.from(joined.replace(/=([0-9A-Fa-f]{2})/g, hexByte), 'latin1');
}

/** Raw header bytes: UTF-8 when they are valid UTF-8 (RFC 6532), Latin-1 otherwise. */
function headerText(bytes: string): string {
  if (!/[\x80-\xff]/.test(bytes)) return bytes;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(bytes, 'latin1'));
  } catch {
    return bytes;
  }
}

function parseContentType(field: string | undefined): { type: string; params: Record<string, string> } {
  // Bounded: a parameter regex over a megabyte-long field would backtrack for seconds.
  const value = (field ?? '').slice(0, 4096);
  const semicolon = value.indexOf(';');
  const type = (semicolon < 0 ? value : value.slice(0, semicolon)).trim().toLowerCase();
  const params: Record<string, string> = {};
  if (semicolon >= 0) {
    for (const [, name, raw] of value.slice(semicolon + 1).matchAll(PARAMETER)) {
      const quoted = raw!.startsWith('"') && raw!.endsWith('"') && raw!.length > 1;
      params[name!.toLowerCase()] = quoted ? raw!.slice(1, -1).replace(/\\(.)/g, '$1') : raw!.trim();
    }
  }
  return { type: MEDIA_TYPE.test(type) ? type : 'text/plain', params };
}

/** Head and body of an entity: split at the first empty line (line ends are LF by now). */
export function splitHead(source: string): { head: string; body: string } {
  if (source.startsWith('\n')) return { head: '', body: source.slice(1) };
  const end = source.indexOf('\n\n');
  return end < 0 ? { head: source, body: '' } : { head: source.slice(0, end), body: source.slice(end + 2) };
}

function readEntity(source: string): Entity {
  const { head, body } = splitHead(source);
  const headers = parseFields(headerText(head));
  return { headers, ...parseContentType(fieldValue(headers, 'content-type')), body };
}

/** The body parts between the boundary lines; an unterminated last part (a cut message) is kept. */
function splitMultipart(body: string, boundary: string): string[] {
  const delimiter = `--${boundary}`;
  const parts: string[] = [];
  let current: string[] | null = null;
  for (const line of body.split('\n')) {
    const rest = line.startsWith(delimiter) ? line.slice(delimiter.length) : null;
    if (rest === null || (rest.trim() !== '' && !rest.startsWith('--'))) {
      current?.push(line);
      continue;
    }
    if (current) parts.push(current.join('\n'));
    if (rest.startsWith('--')) return parts;
    current = [];
  }
  if (current) parts.push(current.join('\n'));
  return parts;
}

function decodeBody(entity: Entity): string {
  const encoding = fieldValue(entity.headers, 'content-transfer-encoding')?.toLowerCase();
  // The encoded form is longer than the text it holds: twice the text limit covers base64.
  const body = entity.body.slice(0, MAX_PART_CHARS * 2);
  const bytes =
    encoding === 'base64'
      ? Buffer.from(body, 'base64')
      : encoding === 'quoted-printable'
        ? decodeQuotedPrintable(body)
        : Buffer.from(body, 'latin1');
  // A base64 body keeps the sender's CRLF line ends: the readers work on LF only.
  return decodeCharset(bytes, entity.params.charset).slice(0, MAX_PART_CHARS).replace(/\r\n?/g, '\n');
}

function collectLeaves(entity: Entity, depth: number, leaves: MimePart[]): void {
  const boundary = entity.params.boundary;
  if (entity.type.startsWith('multipart/') && boundary && depth < MAX_DEPTH) {
    for (const source of splitMultipart(entity.body, boundary)) {
      if (leaves.length >= MAX_PARTS) return;
      collectLeaves(readEntity(source), depth + 1, leaves);
    }
    return;
  }
  leaves.push({ type: entity.type, params: entity.params, headers: entity.headers, text: decodeBody(entity) });
}

/** The message's headers and leaf parts. CRLF and LF line ends read the same. */
export function parseMime(raw: Buffer | string): MimeMessage {
  const bytes = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
  // Latin-1 maps every byte to one character, so the bytes survive until a part is decoded.
  const source = bytes.subarray(0, MAX_MESSAGE_BYTES).toString('latin1').replace(/\r\n?/g, '\n');
  const root = readEntity(source);
  const parts: MimePart[] = [];
  collectLeaves(root, 0, parts);
  return { headers: root.headers, type: root.type, params: root.params, parts };
}

/** Plain text of a text part; HTML reduced to its text (some reports carry no text/plain). */
export function plainText(part: MimePart): string {
  if (part.type !== 'text/html') return part.text;
  return part.text
    .replace(/<(script|style)\b[^<>]*>[^<]*<\/\1>/gi, '')
    .replace(/<(br|\/p|\/div|\/tr|\/h\d|\/li)\b[^<>]*>/gi, '\n')
    .replace(/<[^<>]*>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&amp;/g, '&');
}

/** An address without display name or angle brackets, domain lower-case; null when it is none. */
export function normalizeAddress(value: string): string | null {
  // A field value can be anything: an address is never longer than this (RFC 5321 4.5.3.1).
  const bounded = value.slice(0, 512);
  const bracketed = /<([^<>]*)>/.exec(bounded);
  const address = (bracketed ? bracketed[1]! : bounded).trim().replace(/[.,;:]+$/, '');
  const at = address.lastIndexOf('@');
  if (at <= 0 || at === address.length - 1 || /\s/.test(address)) return null;
  return address.slice(0, at) + address.slice(at).toLowerCase();
}

/** The first <id> of a Message-ID field, without angle brackets. */
export function messageIdOf(value: string | undefined): string | null {
  if (!value) return null;
  const id = /<([^<>\s]+)>/.exec(value)?.[1] ?? value.trim().split(/\s/)[0];
  return id ? id : null;
}
