/**
 * A small, strict XML tokenizer for SVG uploads: enough to see every element, attribute,
 * text run and declaration, with no entity expansion and no network. Malformed input is
 * reported, not guessed at.
 */
export type SvgToken =
  | { kind: 'open'; name: string; attributes: Array<{ name: string; value: string }>; selfClosing: boolean }
  | { kind: 'close'; name: string }
  | { kind: 'text'; text: string }
  | { kind: 'declaration'; text: string }
  | { kind: 'instruction'; target: string };

export type TokenizeResult = { ok: true; tokens: SvgToken[] } | { ok: false };

const NAME = /^[A-Za-z_:][\w:.-]*/;

export function tokenizeSvg(text: string): TokenizeResult {
  const tokens: SvgToken[] = [];
  let i = 0;
  while (i < text.length) {
    const lt = text.indexOf('<', i);
    if (lt === -1) {
      tokens.push({ kind: 'text', text: text.slice(i) });
      break;
    }
    if (lt > i) tokens.push({ kind: 'text', text: text.slice(i, lt) });
    const next = readMarkup(text, lt, tokens);
    if (next === undefined) return { ok: false };
    i = next;
  }
  return { ok: true, tokens };
}

/** Reads one markup construct starting at `<`; returns the offset after it. */
function readMarkup(text: string, at: number, tokens: SvgToken[]): number | undefined {
  if (text.startsWith('<!--', at)) return skipTo(text, at + 4, '-->');
  if (text.startsWith('<![CDATA[', at)) {
    const end = text.indexOf(']]>', at + 9);
    if (end === -1) return undefined;
    tokens.push({ kind: 'text', text: text.slice(at + 9, end) });
    return end + 3;
  }
  if (text.startsWith('<!', at)) return readDeclaration(text, at, tokens);
  if (text.startsWith('<?', at)) {
    const end = skipTo(text, at + 2, '?>');
    if (end === undefined) return undefined;
    tokens.push({ kind: 'instruction', target: (NAME.exec(text.slice(at + 2))?.[0] ?? '').toLowerCase() });
    return end;
  }
  if (text.startsWith('</', at)) {
    const match = /^<\/([A-Za-z_:][\w:.-]*)\s*>/.exec(text.slice(at, at + 300));
    if (!match) return undefined;
    tokens.push({ kind: 'close', name: match[1]! });
    return at + match[0].length;
  }
  return readOpenTag(text, at, tokens);
}

function skipTo(text: string, from: number, terminator: string): number | undefined {
  const end = text.indexOf(terminator, from);
  return end === -1 ? undefined : end + terminator.length;
}

/** <!DOCTYPE ...> with an optional [internal subset], <!ENTITY ...>, and the like. */
function readDeclaration(text: string, at: number, tokens: SvgToken[]): number | undefined {
  let depth = 0;
  for (let i = at + 2; i < text.length; i++) {
    const c = text[i];
    if (c === '[') depth++;
    else if (c === ']') depth--;
    else if (c === '>' && depth <= 0) {
      tokens.push({ kind: 'declaration', text: text.slice(at, i + 1) });
      return i + 1;
    }
  }
  return undefined;
}

function readOpenTag(text: string, at: number, tokens: SvgToken[]): number | undefined {
  const name = NAME.exec(text.slice(at + 1, at + 200))?.[0];
  if (!name) return undefined;
  let i = at + 1 + name.length;
  const attributes: Array<{ name: string; value: string }> = [];
  for (;;) {
    const space = /^\s*/.exec(text.slice(i))![0].length;
    i += space;
    if (text.startsWith('/>', i)) {
      tokens.push({ kind: 'open', name, attributes, selfClosing: true });
      return i + 2;
    }
    if (text[i] === '>') {
      tokens.push({ kind: 'open', name, attributes, selfClosing: false });
      return i + 1;
    }
    if (space === 0 && attributes.length > 0) return undefined;
    const attribute = /^([A-Za-z_:][\w:.-]*)\s*=\s*("([^"]*)"|'([^']*)')/.exec(text.slice(i));
    if (!attribute) return undefined;
    attributes.push({ name: attribute[1]!, value: attribute[3] ?? attribute[4] ?? '' });
    i += attribute[0].length;
  }
}
