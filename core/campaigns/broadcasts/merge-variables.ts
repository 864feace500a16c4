import { escapeHtml } from '../../../lib/text/escape-html.js';
import {
  placeholdersOf,
  renderPlaceholders,
  syntaxProblems,
  type FieldProblem,
  type Placeholder,
} from '../../shared/placeholders/placeholder-syntax.js';
import { BRAND_TOKENS } from '../../sending/templates/placeholders.js';
/**
 * Broadcast merge variables, in the shared placeholder syntax (core/shared/placeholders):
 * `{{{KEY}}}`, `{{{KEY|default}}}` and the same with two braces, in subject and bodies. A value
 * resolves to the inline default, then the property's fallback_value, then the empty string
 * (spec); built-ins are FIRST_NAME, LAST_NAME, EMAIL, UNSUBSCRIBE_URL, PREFERENCES_URL and every
 * declared property key as declared (a key differing only in case also matches). Brand tokens
 * (`{{brand.logo_url}}`, as in templates a broadcast may copy) take the team's brand kit. Values
 * are HTML-escaped in html and inserted as they are in text and subject. One pass: a value that
 * looks like a placeholder stays as it is.
 */

/** What one recipient's placeholders resolve to (null: no value, use the defaults). */
export type MergeValues = {
  lookup(key: string): string | null;
  fallback(key: string): string | null;
  /** The team's brand values by field (neutral defaults for null fields). */
  brand?: Record<string, string>;
};

export function mergeText(text: string, values: MergeValues): string {
  return renderPlaceholders(text, (p) => resolve(p, values));
}

export function mergeHtml(html: string, values: MergeValues): string {
  return renderPlaceholders(html, (p) => {
    const value = resolve(p, values);
    return value === undefined ? undefined : escapeHtml(value);
  });
}

/** Whether the texts name either link placeholder (then no footer is added). */
export function namesUnsubscribeLink(...texts: Array<string | null>): boolean {
  return placeholdersOf(...texts).some((p) => p.name === 'UNSUBSCRIBE_URL' || p.name === 'PREFERENCES_URL');
}

/**
 * Placeholders a broadcast's subject and bodies may not hold, one problem per placeholder, path
 * the field: those that do not parse, a dotted name that is no brand token, a brand token with a
 * default (it always has a value).
 */
export function mergeProblems(fields: Record<string, string | null | undefined>): FieldProblem[] {
  const syntax = syntaxProblems(fields);
  if (syntax.length > 0) return syntax;
  return Object.entries(fields).flatMap(([path, text]) =>
    placeholdersOf(text).flatMap((p) => {
      if (!p.name.includes('.')) return [];
      const [scope, field] = p.name.split('.') as [string, string];
      if (scope !== 'brand' || !(BRAND_TOKENS as readonly string[]).includes(field))
        return [{ path, message: `placeholder "${p.raw}" is neither a merge variable nor a brand token` }];
      if (p.fallback !== undefined)
        return [{ path, message: `placeholder "${p.raw}": a brand token takes no default` }];
      return [];
    }),
  );
}

function resolve(p: Placeholder, values: MergeValues): string | undefined {
  if (p.name.includes('.')) {
    const field = p.name.startsWith('brand.') ? p.name.slice(6) : '';
    return values.brand && Object.hasOwn(values.brand, field) ? values.brand[field] : undefined;
  }
  const value = values.lookup(p.name);
  if (value !== null && value !== '') return value;
  if (p.fallback !== undefined) return p.fallback;
  return values.fallback(p.name) ?? '';
}
