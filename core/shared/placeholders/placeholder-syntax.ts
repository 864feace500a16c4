/**
 * The one placeholder syntax of templates and broadcasts (automations send templates, so they
 * use it too). `{{NAME}}` and `{{{NAME}}}` mean the same thing everywhere: the spec writes
 * templates with two braces and broadcast merge variables with three, and gives the third brace
 * no meaning of its own (values are HTML-escaped in html either way). Spaces inside the braces
 * are allowed; NAME is letters, digits and underscore, or `brand.<field>`; `|default` after the
 * name is an inline default where the consumer allows one.
 *
 * Every `{{` opens a placeholder. A placeholder that does not parse (not closed, fewer closing
 * than opening braces, four braces or more, empty, a name with other characters) is a flaw:
 * refused when content is written, and left exactly as written when older content is rendered,
 * never half-substituted. Closing braces beyond the opening ones are ordinary text (a CSS rule
 * `a{color:{{brand.accent_color}}}` ends its block with the third one); `}}` alone is text too.
 */

/** One well-formed placeholder as written. */
export type Placeholder = {
  name: string;
  /** The inline default (`{{{KEY|default}}}`), as written; undefined when there is none. */
  fallback: string | undefined;
  /** The placeholder's own text, braces included. */
  raw: string;
};

/** A placeholder that does not parse: its text (shortened) and why. */
export type PlaceholderFlaw = { raw: string; reason: string };

/** A text cut into literal pieces and placeholders, and the flaws (which stay literal). */
export type ScannedText = { pieces: Array<string | Placeholder>; flaws: PlaceholderFlaw[] };

export type FieldProblem = { path: string; message: string };

const NAME = /^[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)?$/;
const SHOWN_CHARS = 60;

const shorten = (raw: string) => (raw.length > SHOWN_CHARS ? `${raw.slice(0, SHOWN_CHARS)}…` : raw);
const run = (text: string, from: number, char: string) => {
  let end = from;
  while (text[end] === char) end++;
  return end;
};

/** Why the placeholder opened with `opening` braces, holding `content`, closed with `closing` is not one. */
function flawOf(opening: number, content: string, closing: number, closedBy: string | undefined): string | undefined {
  const close = '}'.repeat(Math.min(opening, 3));
  if (opening > 3) return `opens with ${opening} braces: write {{NAME}} or {{{NAME}}}`;
  if (closing === 0)
    return closedBy === '{'
      ? `is not closed before the next {: end it with ${close}`
      : `is not closed: end it with ${close}`;
  if (closing < opening)
    return `opens with ${'{'.repeat(opening)} but closes with ${'}'.repeat(closing)}: use as many braces on both sides`;
  const bar = content.indexOf('|');
  const name = (bar === -1 ? content : content.slice(0, bar)).trim();
  if (name === '') return bar === -1 ? 'is empty: name a variable between the braces' : 'has a default but no name';
  if (!NAME.test(name)) return `names "${name}": a name is letters, digits and underscore (or brand.<field>)`;
  return undefined;
}

export function scanPlaceholders(text: string): ScannedText {
  const pieces: Array<string | Placeholder> = [];
  const flaws: PlaceholderFlaw[] = [];
  let literalFrom = 0;
  let at = text.indexOf('{{');
  while (at !== -1) {
    const open = run(text, at, '{');
    let close = open;
    while (close < text.length && text[close] !== '{' && text[close] !== '}') close++;
    const closing = run(text, close, '}') - close;
    const opening = open - at;
    const content = text.slice(open, close);
    const flaw = flawOf(opening, content, closing, text[close]);
    if (flaw) {
      flaws.push({ raw: shorten(text.slice(at, close + closing)), reason: flaw });
      at = text.indexOf('{{', Math.max(close, at + opening));
      continue;
    }
    const end = close + opening;
    const bar = content.indexOf('|');
    if (at > literalFrom) pieces.push(text.slice(literalFrom, at));
    pieces.push({
      name: (bar === -1 ? content : content.slice(0, bar)).trim(),
      fallback: bar === -1 ? undefined : content.slice(bar + 1),
      raw: text.slice(at, end),
    });
    literalFrom = end;
    at = text.indexOf('{{', end);
  }
  if (literalFrom < text.length) pieces.push(text.slice(literalFrom));
  return { pieces, flaws };
}

/** The well-formed placeholders of the texts, in order. */
export function placeholdersOf(...texts: Array<string | null | undefined>): Placeholder[] {
  return texts.flatMap((text) =>
    scanPlaceholders(text ?? '').pieces.filter((p): p is Placeholder => typeof p !== 'string'),
  );
}

/** One problem per flaw, its path the field it is in and its message quoting the text. */
export function syntaxProblems(fields: Record<string, string | null | undefined>): FieldProblem[] {
  return Object.entries(fields).flatMap(([path, text]) =>
    scanPlaceholders(text ?? '').flaws.map((flaw) => ({ path, message: `placeholder "${flaw.raw}" ${flaw.reason}` })),
  );
}

/**
 * Replaces each well-formed placeholder with what `value` gives for it, in one pass (an inserted
 * value that looks like a placeholder stays as it is). `undefined` leaves the placeholder as
 * written; flaws stay as written.
 */
export function renderPlaceholders(text: string, value: (placeholder: Placeholder) => string | undefined): string {
  return scanPlaceholders(text)
    .pieces.map((piece) => (typeof piece === 'string' ? piece : (value(piece) ?? piece.raw)))
    .join('');
}
