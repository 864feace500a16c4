import { TextField } from '../../ui/field';
import type { ContactProperty } from '../properties/property-types';

/** What the form holds per property key: the text typed (a number is parsed on save). */
export type PropertyDrafts = Record<string, string>;

export const draftsOf = (values: Record<string, string | number>, declared: ContactProperty[]): PropertyDrafts =>
  Object.fromEntries(declared.map((p) => [p.key, values[p.key] === undefined ? '' : String(values[p.key])]));

/**
 * The PATCH body's `properties`: only the keys whose text changed; an emptied field is null
 * (the API then removes the value and the fallback applies); a number field's text as a number.
 */
export function changedProperties(
  drafts: PropertyDrafts,
  initial: PropertyDrafts,
  declared: ContactProperty[],
): Record<string, string | number | null> {
  const changed: Record<string, string | number | null> = {};
  for (const property of declared) {
    const text = drafts[property.key] ?? '';
    if (text === (initial[property.key] ?? '')) continue;
    if (text.trim() === '') changed[property.key] = null;
    else changed[property.key] = property.type === 'number' ? Number(text) : text;
  }
  return changed;
}

/** One input per declared property, typed by its declaration (a number field for a number). */
export function PropertyInputs({
  declared,
  drafts,
  onChange,
  errorFor,
}: {
  declared: ContactProperty[];
  drafts: PropertyDrafts;
  onChange: (key: string, text: string) => void;
  errorFor: (key: string) => string | undefined;
}) {
  if (declared.length === 0)
    return <p className="muted">No property is declared yet: declare them under Properties.</p>;
  return (
    <div className="grid-2">
      {declared.map((property) => (
        <TextField
          key={property.id}
          label={property.key}
          type={property.type === 'number' ? 'number' : 'text'}
          step={property.type === 'number' ? 'any' : undefined}
          maxLength={property.type === 'string' ? 500 : undefined}
          value={drafts[property.key] ?? ''}
          onChange={(event) => onChange(property.key, event.target.value)}
          error={errorFor(property.key)}
          hint={`${property.type}${property.fallback_value !== null ? `; when empty: ${String(property.fallback_value)}` : ''}`}
        />
      ))}
    </div>
  );
}
