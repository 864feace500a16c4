/**
 * A small HTML tokenizer for the code editor's colours: tags, attribute names, attribute values,
 * comments and {{placeholders}} (inside text and values alike). It never fails: what it does not
 * recognise is plain text, so the highlighted copy always has exactly the source's characters
 * (the editor lays it under the textarea, so they must line up).
 */
export type TokenKind = 'text' | 'punct' | 'tag' | 'attr' | 'string' | 'placeholder' | 'comment';
export type Token = { kind: TokenKind; text: string };

const PLACEHOLDER = /\{\{\{?\s*[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)?\s*\}\}\}?/g;

/** Splits `text` of one kind into that kind and the placeholders inside it. */
function withPlaceholders(text: string, kind: TokenKind, out: Token[]) {
  let from = 0;
  for (const match of text.matchAll(PLACEHOLDER)) {
    if (match.index > from) out.push({ kind, text: text.slice(from, match.index) });
    out.push({ kind: 'placeholder', text: match[0] });
    from = match.index + match[0].length;
  }
  if (from < text.length) out.push({ kind, text: text.slice(from) });
}

export function highlightHtml(source: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const n = source.length;
  while (i < n) {
    if (source.startsWith('<!--', i)) {
      const end = source.indexOf('-->', i + 4);
      const stop = end === -1 ? n : end + 3;
      out.push({ kind: 'comment', text: source.slice(i, stop) });
      i = stop;
      continue;
    }
    if (source[i] === '<' && /[A-Za-z/!?]/.test(source[i + 1] ?? '')) {
      const opener = source[i + 1] === '/' ? '</' : '<';
      out.push({ kind: 'punct', text: opener });
      i += opener.length;
      const name = /^[!?]?[A-Za-z0-9:_-]*/.exec(source.slice(i))![0];
      if (name) out.push({ kind: 'tag', text: name });
      i += name.length;
      // Attributes until the tag closes (or the source ends: an unfinished tag while typing).
      while (i < n && source[i] !== '>') {
        const rest = source.slice(i);
        const space = /^\s+/.exec(rest);
        if (space) {
          out.push({ kind: 'text', text: space[0] });
          i += space[0].length;
          continue;
        }
        if (rest.startsWith('/>')) break;
        if (source[i] === '=') {
          out.push({ kind: 'punct', text: '=' });
          i += 1;
          continue;
        }
        if (source[i] === '"' || source[i] === "'") {
          const end = source.indexOf(source[i]!, i + 1);
          const stop = end === -1 ? n : end + 1;
          withPlaceholders(source.slice(i, stop), 'string', out);
          i = stop;
          continue;
        }
        const previous = out.at(-1);
        const word = /^[^\s=>"']+/.exec(rest)?.[0] ?? source[i]!;
        withPlaceholders(word, previous?.kind === 'punct' && previous.text === '=' ? 'string' : 'attr', out);
        i += word.length;
      }
      if (source.startsWith('/>', i)) {
        out.push({ kind: 'punct', text: '/>' });
        i += 2;
      } else if (source[i] === '>') {
        out.push({ kind: 'punct', text: '>' });
        i += 1;
      }
      continue;
    }
    let next = source.indexOf('<', i + 1);
    if (next === -1) next = n;
    withPlaceholders(source.slice(i, next), 'text', out);
    i = next;
  }
  return out;
}
