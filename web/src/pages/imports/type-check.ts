import type { PropertyDef } from './import-types';
import type { CsvPreview } from './csv-preview';

/** Where a column goes: '' (not imported), a contact field, or `property:<key>`. */
export type Target = string;
export type ColumnCheck = { ok: boolean; message: string };

// The appliance's own reading rules (core/audience/imports/row-rules.ts), so the warning matches the failures.
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const BOOLEAN = new Set(['true', 'yes', 'y', '1', 't', 'false', 'no', 'n', '0', 'f']);
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MAX_STRING = 500;
const EXAMPLES = 3;

/** The target's type in words and the test a non-empty cell must pass. */
function rule(target: Target, properties: PropertyDef[]): { type: string; fits: (v: string) => boolean } | null {
  if (target === 'email') return { type: 'an email address', fits: (v) => EMAIL.test(v) };
  if (target === 'unsubscribed') return { type: 'true or false', fits: (v) => BOOLEAN.has(v.toLowerCase()) };
  if (target === 'first_name' || target === 'last_name')
    return { type: 'a name of at most 200 characters', fits: (v) => v.length <= 200 };
  if (target.startsWith('property:')) {
    const key = target.slice('property:'.length);
    const property = properties.find((p) => p.key === key);
    if (property?.type === 'number')
      return { type: `a number ("${key}" is a number property)`, fits: (v) => NUMBER.test(v) };
    return { type: `text of at most ${MAX_STRING} characters`, fits: (v) => v.length <= MAX_STRING };
  }
  return null;
}

/**
 * The type check shown before the import starts: for each mapped column, the rows whose value
 * the appliance will refuse (those rows fail; the rest import), with the first few as examples.
 * An empty email cell fails its row too; other empty cells just leave the value unset.
 */
export function checkColumn(
  csv: CsvPreview,
  index: number,
  target: Target,
  properties: PropertyDef[],
): ColumnCheck | null {
  const r = rule(target, properties);
  if (!r) return null;
  const bad: { row: number; value: string }[] = [];
  for (const record of csv.records) {
    const value = (record.fields[index] ?? '').trim();
    if (value === '' ? target === 'email' : !r.fits(value)) bad.push({ row: record.row, value });
  }
  const scope = csv.truncated ? ` (of the first ${csv.records.length.toLocaleString()} rows checked)` : '';
  if (bad.length === 0) return { ok: true, message: `Every value is ${r.type}${scope}.` };
  const examples = bad
    .slice(0, EXAMPLES)
    .map(
      (b) =>
        `row ${b.row}: ${b.value === '' ? 'empty' : JSON.stringify(b.value.length > 30 ? `${b.value.slice(0, 30)}…` : b.value)}`,
    )
    .join('; ');
  const rows = bad.length === 1 ? '1 row' : `${bad.length.toLocaleString()} rows`;
  return {
    ok: false,
    message: `${rows} will fail${scope}: not ${r.type} (${examples}${bad.length > EXAMPLES ? '; …' : ''}).`,
  };
}

/** The form's column_map for the chosen targets (the spec's shape). */
export function columnMap(header: string[], targets: Target[]) {
  const map: Record<string, unknown> = {};
  const properties: Record<string, string> = {};
  targets.forEach((target, index) => {
    const column = header[index]!;
    if (target.startsWith('property:')) properties[target.slice('property:'.length)] = column;
    else if (target) map[target] = column;
  });
  if (Object.keys(properties).length) map.properties = properties;
  return map;
}

/** The first guess: a column named like a field or a property goes there (as the appliance would). */
export function guessTargets(header: string[], properties: PropertyDef[]): Target[] {
  const used = new Set<string>();
  return header.map((name) => {
    const lower = name.toLowerCase();
    const field = ['email', 'first_name', 'last_name', 'unsubscribed'].find((f) => f === lower);
    const property = properties.find((p) => p.key.toLowerCase() === lower);
    const target = field ?? (property ? `property:${property.key}` : '');
    if (!target || used.has(target)) return '';
    used.add(target);
    return target;
  });
}

/** What stops the import from starting: no email column, or two columns for one target. */
export function mappingProblem(targets: Target[]): string | null {
  if (!targets.includes('email')) return 'Choose the column that holds the email address.';
  const seen = new Set<string>();
  for (const target of targets) {
    if (!target) continue;
    if (seen.has(target)) return `Two columns are mapped to ${target.replace('property:', 'the property ')}.`;
    seen.add(target);
  }
  return null;
}

/**
 * A column left "Not imported" that the appliance reads all the same: the API takes the column
 * named like a field or property that the map leaves unmapped.
 */
export function readAnyway(name: string, targets: Target[], properties: PropertyDef[]): boolean {
  const lower = name.toLowerCase();
  const field = ['email', 'first_name', 'last_name', 'unsubscribed'].find((f) => f === lower);
  const property = properties.find((p) => p.key.toLowerCase() === lower);
  const target = field ?? (property ? `property:${property.key}` : null);
  return target !== null && !targets.includes(target);
}
