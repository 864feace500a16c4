import { validateHeaderValue } from 'node:http';
import { z } from 'zod';
import { MIME_TYPE } from '../core/sending/emails/attachment-rules.js';

/** The query of a signed, expiring download link (the signature is the credential). */
export const signedLinkQuery = z.object({ expires: z.string().max(20), signature: z.string().max(100) }).strict();

/** Longest name served, in characters: what the API takes for a sent attachment; received ones may be longer. */
const MAX_NAME_CHARS = 255;
/** An extension this short is kept when a long name is cut. */
const MAX_EXTENSION_CHARS = 16;
const CONTROL = /[\u0000-\u001f\u007f]/g;
/** RFC 5987 attr-char: what `filename*` carries as is; every other UTF-8 byte is percent-encoded. */
const ATTR_CHAR = /^[A-Za-z0-9!#$&+\-.^_`|~]$/;

/** The name without control characters (each becomes `_`), at most 255 characters with its extension kept. */
function servableName(filename: string | null): string {
  const chars = [...(filename || 'attachment').replace(CONTROL, '_')];
  if (chars.length <= MAX_NAME_CHARS) return chars.join('');
  const dot = chars.lastIndexOf('.');
  const extension = dot > 0 && chars.length - dot <= MAX_EXTENSION_CHARS ? chars.slice(dot) : [];
  return [...chars.slice(0, MAX_NAME_CHARS - extension.length), ...extension].join('');
}

/**
 * The ASCII fallback (`filename="..."`): one `_` per character that is not printable ASCII, and
 * for `"`, `\` (they would end or escape the quoted string) and `%` (which some agents decode).
 */
const asciiFallback = (name: string) =>
  [...name].map((c) => (/^[\x20-\x7e]$/.test(c) && !/["\\%]/.test(c) ? c : '_')).join('');

/** RFC 5987 ext-value: UTF-8, every byte outside attr-char percent-encoded (a lone surrogate becomes U+FFFD). */
function extendedValue(name: string): string {
  let out = "UTF-8''";
  for (const byte of Buffer.from(name, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += ATTR_CHAR.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * Content-Disposition for a download, as RFC 6266 says: `attachment; filename="<ASCII fallback>"`
 * and, when the name is not plain ASCII (or holds a quote, backslash or percent sign),
 * `filename*=UTF-8''<percent-encoded name>`, which every current browser prefers. The header is
 * ASCII whatever the name: a name outside Latin-1 once made Node refuse the header (a 500).
 */
export function contentDisposition(filename: string | null): string {
  const name = servableName(filename);
  const fallback = asciiFallback(name);
  return fallback === name
    ? `attachment; filename="${name}"`
    : `attachment; filename="${fallback}"; filename*=${extendedValue(name)}`;
}

/**
 * A file served through a signed link: downloaded, never rendered by the browser (nosniff, an
 * attachment disposition whatever the name holds), and never cached. A received attachment's
 * type is whatever the message said: one that is no MIME type is served as octet-stream.
 */
export function servedFile(filename: string | null, contentType: string, bytes: Buffer) {
  const headers = {
    'content-disposition': contentDisposition(filename),
    'x-content-type-options': 'nosniff',
    'cache-control': 'private, no-store',
  };
  // Checked here, inside the handler, so a header Node would refuse is the pipeline's logged
  // 500 with the error body, never a failure while the answer is written.
  for (const [name, value] of Object.entries(headers)) validateHeaderValue(name, value);
  return {
    status: 200,
    raw: { contentType: MIME_TYPE.test(contentType) ? contentType : 'application/octet-stream', bytes },
    headers,
  };
}
