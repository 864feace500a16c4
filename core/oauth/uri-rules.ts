/** RFC 3986 characters only: no whitespace, CR, LF, NUL or other control, backslash, quote or non-ASCII. */
const URI_CHARACTERS = /^(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})+$/;
/** `scheme://authority`: the authority runs to the first `/`, `?` or `#`. */
const HIERARCHICAL = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)/;

export const MAX_URI_LENGTH = 2048;

/**
 * An absolute http(s) URI as RFC 3986 writes it, read the way a browser will read it. The WHATWG
 * parser behind `new URL` forgives a lot (it drops tabs and newlines, trims spaces, takes
 * `https:///cb` or `https:/cb` as the host `cb`, rewrites `http://0x7f.1` to 127.0.0.1), so a
 * registered string could mean an address other than the one it shows. Here the string must be
 * URI characters only, `scheme://` with a host and no user information, no fragment, and its host
 * as written must be the host the parser finds. Null when any rule fails.
 */
export function parseStrictHttpUri(raw: string): URL | null {
  if (raw.length > MAX_URI_LENGTH || !URI_CHARACTERS.test(raw) || raw.includes('#')) return null;
  const head = HIERARCHICAL.exec(raw);
  const scheme = head?.[1]!.toLowerCase();
  const authority = head?.[2] ?? '';
  if ((scheme !== 'https' && scheme !== 'http') || authority === '' || authority.includes('@')) return null;
  if (!URL.canParse(raw)) return null;
  const url = new URL(raw);
  // The host without its port; an IPv6 literal keeps its brackets, as URL.hostname does.
  const host = authority.replace(/:\d*$/, '').toLowerCase();
  return url.hostname !== '' && url.hostname === host ? url : null;
}
