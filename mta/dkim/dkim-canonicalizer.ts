/**
 * The message split DKIM needs, and relaxed header canonicalization (RFC 6376 3.4.2); the body
 * side is in dkim-body-canonicalizer.ts.
 *
 * The header block is handled as a latin1 string: one JS char per byte, so 8bit UTF-8 fields
 * pass through byte for byte and hashes fed with the 'latin1' encoding get the original bytes
 * back. Only SP and HTAB count as whitespace; String.prototype.trim and \s would also eat 0xA0,
 * a UTF-8 continuation byte (as in "à" = C3 A0), and break signatures over such text.
 */

import { markCrlf, toCrlf } from '../../lib/mail/line-endings.js';

export type HeaderField = {
  /** Lowercased field name, '' for a malformed line without a colon. */
  name: string;
  /** The field as it appears in the message, continuation lines included, no final CRLF. */
  raw: string;
};

export type SplitMessage = {
  /** The whole message with every line ending CRLF (a bare CR or LF made CRLF, as on the wire). */
  normalized: Buffer;
  fields: HeaderField[];
  /** The body (after the blank line), a view into `normalized`. */
  body: Buffer;
};

const CR = 0x0d;
const LF = 0x0a;

export function parseHeaderFields(block: string): HeaderField[] {
  const fields: HeaderField[] = [];
  if (block === '') return fields;
  for (const line of block.split('\r\n')) {
    const last = fields[fields.length - 1];
    if (last && (line.startsWith(' ') || line.startsWith('\t'))) {
      last.raw += `\r\n${line}`;
      continue;
    }
    const colon = line.indexOf(':');
    const name =
      colon === -1
        ? ''
        : line
            .slice(0, colon)
            .replace(/[ \t]+$/, '')
            .toLowerCase();
    fields.push({ name, raw: line });
  }
  return fields;
}

export function splitMessage(message: Buffer): SplitMessage {
  const normalized = toCrlf(message);
  // A message that starts with the blank line has no header fields at all.
  if (normalized[0] === CR && normalized[1] === LF) return { normalized, fields: [], body: normalized.subarray(2) };
  const separator = normalized.indexOf('\r\n\r\n');
  if (separator === -1) {
    // Headers only. The blank line is optional without a body, but parsers (mailauth among
    // them) look for it to find the end of the header, so the message sent gets one.
    const text = normalized.toString('latin1');
    const block = text.endsWith('\r\n') ? text.slice(0, -2) : text;
    return {
      normalized: markCrlf(Buffer.from(`${block}\r\n\r\n`, 'latin1')),
      fields: parseHeaderFields(block),
      body: Buffer.alloc(0),
    };
  }
  return {
    normalized,
    fields: parseHeaderFields(normalized.toString('latin1', 0, separator)),
    body: normalized.subarray(separator + 4),
  };
}

/** RFC 6376 3.4.2, without the trailing CRLF (the caller adds it, except for DKIM-Signature). */
export function relaxedHeader(raw: string): string {
  const colon = raw.indexOf(':');
  const name = raw
    .slice(0, colon)
    .replace(/[ \t]+$/, '')
    .toLowerCase();
  const value = raw
    .slice(colon + 1)
    .replace(/\r\n/g, '')
    .replace(/[ \t]+/g, ' ')
    .replace(/^ | $/g, '');
  return `${name}:${value}`;
}
