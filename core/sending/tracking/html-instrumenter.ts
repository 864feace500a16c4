/**
 * Open and click tracking of an HTML body, done with a small tokenizer that follows the HTML
 * tokenizer's rules for tags, attributes, comments and raw-text elements (so an `<a` inside a
 * comment, a <style> or a quoted attribute is never taken for a link). Only the href values of
 * links and the pixel are changed: every other byte of the message stays as it was written.
 */
export type InstrumentOptions = {
  /** Origin of the tracking URLs, e.g. `https://links.example.com`. */
  base: string;
  /** With open tracking: the pixel's token. */
  openToken?: string;
  /** With click tracking: the token of one original link. */
  clickToken?: (url: string) => string;
};

type Attribute = { name: string; valueStart: number; valueEnd: number; hasValue: boolean };
type Edit = { start: number; end: number; text: string };

const WHITESPACE = /[\t\n\f\r ]/;
const LETTER = /[A-Za-z]/;
/** Elements whose content is text up to their end tag: markup inside them is not markup. */
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes']);

export function instrumentHtml(html: string, options: InstrumentOptions): string {
  const edits: Edit[] = [];
  let bodyEnd = -1;
  let at = html.indexOf('<');
  while (at !== -1) {
    const next = readMarkup(html, at, (name, attributes, end) => {
      if (end && name === 'body') bodyEnd = at;
      if (!end && name === 'a' && options.clickToken) {
        const edit = linkEdit(html, attributes, options.base, options.clickToken);
        if (edit) edits.push(edit);
      }
    });
    at = html.indexOf('<', next);
  }
  if (options.openToken) {
    const pixel = `<img src="${options.base}/o/${options.openToken}" width="1" height="1" alt="" style="display:none">`;
    edits.push({
      start: bodyEnd === -1 ? html.length : bodyEnd,
      end: bodyEnd === -1 ? html.length : bodyEnd,
      text: pixel,
    });
  }
  return applyEdits(html, edits);
}

/** The http(s) URL a link's href holds once its character references are decoded, or null. */
function trackableUrl(html: string, attributes: Attribute[]): string | null {
  const value = (attribute: Attribute) =>
    decodeCharacterReferences(html.slice(attribute.valueStart, attribute.valueEnd));
  // Opt-outs: our own attribute, and the clicktracking=off that other senders' templates carry.
  if (
    attributes.some(
      (a) => a.name === 'data-no-track' || (a.name === 'clicktracking' && value(a).trim().toLowerCase() === 'off'),
    )
  )
    return null;
  // Browsers use the first of repeated attributes.
  const href = attributes.find((a) => a.name === 'href');
  if (!href?.hasValue) return null;
  const url = value(href).replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, '');
  return /^https?:\/\/[^\s/?#]/i.test(url) && URL.canParse(url) ? url : null;
}

function linkEdit(
  html: string,
  attributes: Attribute[],
  base: string,
  clickToken: (url: string) => string,
): Edit | null {
  const url = trackableUrl(html, attributes);
  if (url === null) return null;
  const href = attributes.find((a) => a.name === 'href')!;
  // A base64url token needs no escaping, quoted or not.
  return { start: href.valueStart, end: href.valueEnd, text: `${base}/c/${clickToken(url)}` };
}

function applyEdits(html: string, edits: Edit[]): string {
  if (edits.length === 0) return html;
  edits.sort((a, b) => a.start - b.start);
  let out = '';
  let from = 0;
  for (const edit of edits) {
    out += html.slice(from, edit.start) + edit.text;
    from = edit.end;
  }
  return out + html.slice(from);
}

/**
 * Reads the markup that starts at `<` (a comment, a declaration, an end or start tag, or a lone
 * `<` that is text), reports tags, and returns the offset to continue from.
 */
function readMarkup(
  html: string,
  at: number,
  onTag: (name: string, attributes: Attribute[], end: boolean) => void,
): number {
  if (html.startsWith('<!--', at)) {
    if (html.startsWith('<!-->', at)) return at + 5;
    if (html.startsWith('<!--->', at)) return at + 6;
    const close = html.indexOf('-->', at + 4);
    return close === -1 ? html.length : close + 3;
  }
  const end = html[at + 1] === '/';
  const nameStart = at + (end ? 2 : 1);
  if (!LETTER.test(html[nameStart] ?? '')) {
    // `<!DOCTYPE`, `<?xml`, `</ x>`: bogus comments up to the next `>`. Any other `<` is text.
    if (html[at + 1] === '!' || html[at + 1] === '?' || end) return closeOf(html, at);
    return at + 1;
  }
  let nameEnd = nameStart;
  while (nameEnd < html.length && !WHITESPACE.test(html[nameEnd]!) && html[nameEnd] !== '/' && html[nameEnd] !== '>')
    nameEnd++;
  const name = html.slice(nameStart, nameEnd).toLowerCase();
  const { attributes, next } = readAttributes(html, nameEnd);
  onTag(name, attributes, end);
  if (end || !RAW_TEXT.has(name)) return next;
  return rawTextEnd(html, next, name);
}

function closeOf(html: string, at: number): number {
  const close = html.indexOf('>', at);
  return close === -1 ? html.length : close + 1;
}

/** Where a raw-text element's end tag starts (its content is skipped whole). */
function rawTextEnd(html: string, from: number, name: string): number {
  const endTag = new RegExp(`</${name}(?=[\\t\\n\\f\\r />])`, 'ig');
  endTag.lastIndex = from;
  const match = endTag.exec(html);
  return match ? match.index : html.length;
}

/** The attributes of a tag, by the tokenizer's attribute states; `next` is just past its `>`. */
function readAttributes(html: string, from: number): { attributes: Attribute[]; next: number } {
  const attributes: Attribute[] = [];
  let pos = from;
  for (;;) {
    while (pos < html.length && (WHITESPACE.test(html[pos]!) || html[pos] === '/')) pos++;
    if (pos >= html.length) return { attributes, next: html.length };
    if (html[pos] === '>') return { attributes, next: pos + 1 };
    // The first character of a name may be `=`; after it, `=` ends the name.
    const nameStart = pos++;
    while (pos < html.length && !/[\t\n\f\r />=]/.test(html[pos]!)) pos++;
    const name = html.slice(nameStart, pos).toLowerCase();
    let after = pos;
    while (after < html.length && WHITESPACE.test(html[after]!)) after++;
    if (html[after] !== '=') {
      attributes.push({ name, valueStart: pos, valueEnd: pos, hasValue: false });
      continue;
    }
    pos = after + 1;
    while (pos < html.length && WHITESPACE.test(html[pos]!)) pos++;
    const quote = html[pos];
    if (quote === '"' || quote === "'") {
      const close = html.indexOf(quote, pos + 1);
      const valueEnd = close === -1 ? html.length : close;
      attributes.push({ name, valueStart: pos + 1, valueEnd, hasValue: true });
      pos = valueEnd + 1;
      continue;
    }
    const valueStart = pos;
    while (pos < html.length && !WHITESPACE.test(html[pos]!) && html[pos] !== '>') pos++;
    attributes.push({ name, valueStart, valueEnd: pos, hasValue: true });
  }
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/**
 * Decodes the character references a URL in an attribute holds (`&amp;` above all). Named ones
 * need their `;` (in attributes, `&copy=2` is text, not ©); unknown names stay as written.
 */
export function decodeCharacterReferences(value: string): string {
  if (!value.includes('&')) return value;
  return value.replace(
    /&(?:#(\d+);?|#[xX]([0-9a-fA-F]+);?|([A-Za-z][A-Za-z0-9]*);)/g,
    (whole, dec?: string, hex?: string, named?: string) => {
      if (named !== undefined) return NAMED[named] ?? whole;
      const code = dec !== undefined ? Number(dec) : Number.parseInt(hex!, 16);
      const valid = code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
      return valid ? String.fromCodePoint(code) : '\ufffd';
    },
  );
}
