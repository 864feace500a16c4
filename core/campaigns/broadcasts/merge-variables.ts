import { escapeHtml } from '../../../lib/text/escape-html.js';
/**
 * Broadcast merge variables: `{{{KEY}}}` or `{{{KEY|default}}}` in subject and bodies. A value
 * resolves to the inline default, then the property's fallback_value, then the empty string
 * (spec); built-ins are FIRST_NAME, LAST_NAME, EMAIL, UNSUBSCRIBE_URL, PREFERENCES_URL and every
 * declared property key as declared (a key differing only in case also matches). Values are
 * HTML-escaped in html and inserted as they are in text and subject. One pass: a value that
 * looks like a placeholder stays as it is.
 */
const MERGE = /\{\{\{\s*([A-Za-z0-9_]+)\s*(?:\|([^}]*))?\}\}\}/g;

/** What one recipient's placeholders resolve to (null: no value, use the defaults). */
export type MergeValues = { lookup(key: string): string | null; fallback(key: string): string | null };

export function mergeText(text: string, values: MergeValues): string {
  return text.replace(MERGE, (_whole, key: string, inline: string | undefined) => resolve(key, inline, values));
}

export function mergeHtml(html: string, values: MergeValues): string {
  return html.replace(MERGE, (_whole, key: string, inline: string | undefined) =>
    escapeHtml(resolve(key, inline, values)),
  );
}

/** Whether the texts name either link placeholder (then no footer is added). */
export function namesUnsubscribeLink(...texts: Array<string | null>): boolean {
  return texts.some((text) =>
    [...(text ?? '').matchAll(MERGE)].some((m) => m[1] === 'UNSUBSCRIBE_URL' || m[1] === 'PREFERENCES_URL'),
  );
}

function resolve(key: string, inline: string | undefined, values: MergeValues): string {
  const value = values.lookup(key);
  if (value !== null && value !== '') return value;
  if (inline !== undefined) return inline;
  return values.fallback(key) ?? '';
}
