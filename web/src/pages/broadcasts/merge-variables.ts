import type { ContactProperty } from './broadcast-types';

/**
 * The merge variables a broadcast may use (spec: `{{{KEY}}}` or `{{{KEY|default}}}`; a value
 * resolves to the inline default, then the property's fallback_value, then empty): the built-in
 * keys and the team's declared contact properties, each with what it prints when a contact has
 * no value.
 */
export type MergeVariable = { key: string; description: string; fallback: string | null };

export const BUILT_IN_VARIABLES: MergeVariable[] = [
  { key: 'FIRST_NAME', description: 'First name', fallback: null },
  { key: 'LAST_NAME', description: 'Last name', fallback: null },
  { key: 'EMAIL', description: 'Email address', fallback: null },
  { key: 'UNSUBSCRIBE_URL', description: 'One-click unsubscribe link (no footer is added then)', fallback: null },
  { key: 'PREFERENCES_URL', description: 'Preference page link (no footer is added then)', fallback: null },
];

export function variablesOf(properties: ContactProperty[]): MergeVariable[] {
  return [
    ...BUILT_IN_VARIABLES,
    ...properties.map((p) => ({
      key: p.key,
      description: `Contact property (${p.type})`,
      fallback: p.fallback_value === null ? null : String(p.fallback_value),
    })),
  ];
}

/** The placeholder for a key, with an inline default when one is given (`|` and `}` cannot be in it). */
export function placeholder(key: string, inlineDefault = ''): string {
  const value = inlineDefault.replace(/[|}]/g, '').trim();
  return value ? `{{{${key}|${value}}}}` : `{{{${key}}}}`;
}

/** `text` with `insert` put in place of the selection [start, end); the caret's new position. */
export function insertAt(text: string, insert: string, start: number, end: number): { text: string; caret: number } {
  return { text: text.slice(0, start) + insert + text.slice(end), caret: start + insert.length };
}
