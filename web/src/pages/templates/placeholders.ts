/**
 * The appliance's placeholder rules, mirrored for the live preview (there is no render route):
 * core/shared/placeholders/placeholder-syntax.ts and core/sending/templates/placeholders.ts.
 * `{{NAME}}`, `{{ NAME }}` and `{{{NAME}}}` mean the same; every inserted value is HTML-escaped
 * in html (three braces included) and raw in the subject and text; one pass, so a value that
 * looks like a placeholder stays as it is; a placeholder that does not parse stays as written.
 * Keep this in step with core when its rules change.
 */
export type Placeholder = { name: string; fallback: string | undefined; raw: string };
type Piece = string | Placeholder;

const NAME = /^[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)?$/;

const run = (text: string, from: number, char: string) => {
  let end = from;
  while (text[end] === char) end++;
  return end;
};

/** Why a placeholder does not parse (core's flawOf, messages shortened), or undefined. */
function flawOf(opening: number, content: string, closing: number): string | undefined {
  if (opening > 3) return `opens with ${opening} braces`;
  if (closing === 0) return 'is not closed';
  if (closing < opening) return 'closes with fewer braces than it opens with';
  const bar = content.indexOf('|');
  const name = (bar === -1 ? content : content.slice(0, bar)).trim();
  if (name === '') return 'is empty';
  if (!NAME.test(name)) return `names "${name}": use letters, digits and underscore`;
  return undefined;
}

export function scanPlaceholders(text: string): { pieces: Piece[]; flaws: { raw: string; reason: string }[] } {
  const pieces: Piece[] = [];
  const flaws: { raw: string; reason: string }[] = [];
  let literalFrom = 0;
  let at = text.indexOf('{{');
  while (at !== -1) {
    const open = run(text, at, '{');
    let close = open;
    while (close < text.length && text[close] !== '{' && text[close] !== '}') close++;
    const closing = run(text, close, '}') - close;
    const opening = open - at;
    const content = text.slice(open, close);
    const flaw = flawOf(opening, content, closing);
    if (flaw) {
      flaws.push({ raw: text.slice(at, close + closing).slice(0, 60), reason: flaw });
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

export function placeholderNames(...texts: string[]): Set<string> {
  const names = new Set<string>();
  for (const text of texts)
    for (const piece of scanPlaceholders(text).pieces) if (typeof piece !== 'string') names.add(piece.name);
  return names;
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);

/** A value as the appliance writes it: strings raw, numbers and booleans as written, the rest as JSON. */
function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null || value === undefined) return '';
  return JSON.stringify(value);
}

/** Renders one text; a name without a value (no sample, no fallback) stays as written. */
export function renderText(
  text: string,
  values: Record<string, unknown>,
  brand: Record<string, string>,
  mode: 'html' | 'text',
): string {
  return scanPlaceholders(text)
    .pieces.map((piece) => {
      if (typeof piece === 'string') return piece;
      const brandField = piece.name.startsWith('brand.') ? piece.name.slice(6) : null;
      const raw =
        brandField !== null
          ? Object.hasOwn(brand, brandField)
            ? brand[brandField]
            : undefined
          : Object.hasOwn(values, piece.name)
            ? asText(values[piece.name])
            : undefined;
      if (raw === undefined) return piece.raw;
      return mode === 'html' ? escapeHtml(raw) : raw;
    })
    .join('');
}

export const BRAND_TOKENS = [
  'logo_url',
  'primary_color',
  'accent_color',
  'font',
  'button_radius',
  'company_name',
  'address',
  'footer_text',
] as const;

export type BrandKit = {
  logo_url?: string | null;
  primary_color?: string | null;
  accent_color?: string | null;
  font?: string | null;
  button_style?: string | null;
  company_name?: string | null;
  address?: string | null;
  footer_text?: string | null;
};

const FONT_STACKS: Record<string, string> = {
  system: "-apple-system, BlinkMacSystemFont, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif",
  helvetica: 'Helvetica, Arial, sans-serif',
  arial: 'Arial, Helvetica, sans-serif',
  verdana: 'Verdana, Geneva, sans-serif',
  georgia: 'Georgia, serif',
  times: "'Times New Roman', Times, serif",
  courier: "'Courier New', Courier, monospace",
};
const RADIUS: Record<string, string> = { square: '0px', rounded: '6px', pill: '999px' };

/** core's brandValues: the team's kit with the template's overrides; a null field is a neutral default. */
export function brandValues(kit: BrandKit): Record<string, string> {
  return {
    logo_url: kit.logo_url ?? 'data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw==',
    primary_color: kit.primary_color ?? '#111827',
    accent_color: kit.accent_color ?? '#2563eb',
    font: (kit.font && FONT_STACKS[kit.font]) || 'Arial, Helvetica, sans-serif',
    button_radius: (kit.button_style && RADIUS[kit.button_style]) || '4px',
    company_name: kit.company_name ?? '',
    address: kit.address ?? '',
    footer_text: kit.footer_text ?? '',
  };
}
