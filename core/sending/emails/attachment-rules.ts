/**
 * What an attachment's type and name may be, whether the sender gave them or a fetched file's
 * server and URL did: a MIME type (RFC 6838: type and subtype of 1 to 127 characters each) and
 * a one-line name of at most 255 characters, as the attachment rows store them.
 */
export const MIME_TYPE = /^[\w.+-]{1,127}\/[\w.+-]{1,127}$/;
export const MAX_FILENAME_CHARS = 255;
const CONTROL = /[\u0000-\u001f\u007f]/g;

/** The type a file's server declared, if it is a MIME type; otherwise none (the caller's default applies). */
export function contentTypeFromServer(declared: string | undefined): string | undefined {
  return declared && MIME_TYPE.test(declared) ? declared.toLowerCase() : undefined;
}

/**
 * The name a URL gives a file: the last path segment, percent-decoded when the escapes are
 * valid (as they are not in `report%E0%A4%A.txt`, which is kept as written), without control
 * characters, and at most 255 characters, cut from the front so the extension stays.
 */
export function fileNameFromUrl(url: string): string | undefined {
  const segment = new URL(url).pathname.split('/').pop() ?? '';
  let name: string;
  try {
    name = decodeURIComponent(segment);
  } catch {
    name = segment;
  }
  name = name.replace(CONTROL, '');
  return name ? [...name].slice(-MAX_FILENAME_CHARS).join('') : undefined;
}
