import {
  placeholdersOf,
  renderPlaceholders,
  syntaxProblems,
  type FieldProblem,
} from '../../shared/placeholders/placeholder-syntax.js';
import { escapeHtml } from '../../../lib/text/escape-html.js';
import type { BrandKit } from '../../platform/teams/team.types.js';
import type { TemplateVariable } from './template.types.js';

/**
 * Template placeholders, in the shared syntax (core/shared/placeholders): `{{key}}`, `{{ key }}`
 * and `{{{key}}}` alike, key of letters, digits and underscore; brand tokens are
 * `{{brand.<field>}}`. No logic, filters, defaults or nesting: one pass, and an inserted value
 * that itself looks like a placeholder stays as it is.
 */
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

/** Every placeholder name used in the given texts (brand tokens included, as `brand.x`). */
export function placeholdersIn(...texts: Array<string | null | undefined>): Set<string> {
  return new Set(placeholdersOf(...texts).map((p) => p.name));
}

/**
 * What is wrong with the placeholders of a version's texts: placeholders that do not parse (path:
 * the field), else inline defaults (a template's default is the variable's fallback_value),
 * undeclared placeholders and unused declarations (path: the key, one problem per key).
 */
export function placeholderRefusal(
  variables: TemplateVariable[],
  texts: { subject: string | null | undefined; html: string | null | undefined; text: string | null | undefined },
): { message: string; errors: FieldProblem[] } | undefined {
  const syntax = syntaxProblems(texts);
  if (syntax.length > 0) return { message: `${syntax[0]!.path}: ${syntax[0]!.message}`, errors: syntax };
  const problems: FieldProblem[] = [];
  for (const [path, text] of Object.entries(texts))
    for (const p of placeholdersOf(text))
      if (p.fallback !== undefined)
        problems.push({
          path,
          message: `placeholder "${p.raw}" has an inline default: templates take it from the variable's fallback_value`,
        });
  const used = placeholdersIn(texts.subject, texts.html, texts.text);
  const declared = new Set(variables.map((v) => v.key));
  for (const name of used) {
    if (name.startsWith('brand.')) {
      if (!(BRAND_TOKENS as readonly string[]).includes(name.slice(6)))
        problems.push({ path: name, message: `{{${name}}} is not a brand token` });
    } else if (!declared.has(name)) {
      problems.push({ path: name, message: `placeholder {{${name}}} is not declared in variables` });
    }
  }
  for (const key of declared)
    if (!used.has(key)) problems.push({ path: key, message: `variable ${key} is declared but not used` });
  return problems.length === 0
    ? undefined
    : { message: 'Placeholders and declared variables do not match', errors: problems };
}

/** A value as text: strings raw, numbers and booleans as written, objects and lists as compact JSON. */
function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null || value === undefined) return '';
  return JSON.stringify(value);
}

/** Neutral defaults for brand fields that are null: never visible text. */
const NEUTRAL: Record<(typeof BRAND_TOKENS)[number], string> = {
  logo_url: 'data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw==',
  primary_color: '#111827',
  accent_color: '#2563eb',
  font: 'Arial, Helvetica, sans-serif',
  button_radius: '4px',
  company_name: '',
  address: '',
  footer_text: '',
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

export function brandValues(kit: BrandKit): Record<string, string> {
  return {
    logo_url: kit.logo_url ?? NEUTRAL.logo_url,
    primary_color: kit.primary_color ?? NEUTRAL.primary_color,
    accent_color: kit.accent_color ?? NEUTRAL.accent_color,
    font: kit.font ? FONT_STACKS[kit.font]! : NEUTRAL.font,
    button_radius: kit.button_style ? RADIUS[kit.button_style]! : NEUTRAL.button_radius,
    company_name: kit.company_name ?? NEUTRAL.company_name,
    address: kit.address ?? NEUTRAL.address,
    footer_text: kit.footer_text ?? NEUTRAL.footer_text,
  };
}

/** Renders one text; `html` escapes every inserted value (strings, JSON and brand values alike). */
export function renderText(
  text: string,
  values: Record<string, unknown>,
  brand: Record<string, string>,
  mode: 'html' | 'text',
): string {
  return renderPlaceholders(text, ({ name }) => {
    const raw = name.startsWith('brand.')
      ? Object.hasOwn(brand, name.slice(6))
        ? brand[name.slice(6)]
        : undefined
      : Object.hasOwn(values, name)
        ? asText(values[name])
        : undefined;
    if (raw === undefined) return undefined;
    return mode === 'html' ? escapeHtml(raw) : raw;
  });
}
