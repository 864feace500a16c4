import { Button } from '../../ui/button';
import { SelectField, TextField } from '../../ui/field';
import { newRow, SCHEMA_TYPES, type SchemaRow, type SchemaType } from './event-types';

/**
 * A flat schema as rows of payload key and type. `errorFor` gives the API's message for a key
 * (its errors name `schema.<key>`), shown on that row.
 */
export function SchemaEditor({
  rows,
  onChange,
  errorFor,
}: {
  rows: SchemaRow[];
  onChange: (rows: SchemaRow[]) => void;
  errorFor: (key: string) => string | undefined;
}) {
  const update = (id: number, patch: Partial<SchemaRow>) =>
    onChange(rows.map((row) => (row.id === id ? { ...row, ...patch } : row)));
  return (
    <fieldset className="stack">
      <legend>Payload schema</legend>
      <p className="field-hint">
        The payload keys you declare are type-checked when an event is sent; other keys pass. No key: no check.
      </p>
      {rows.map((row, index) => (
        <div className="row" key={row.id}>
          <TextField
            label={`Key ${index + 1}`}
            value={row.key}
            maxLength={100}
            onChange={(e) => update(row.id, { key: e.target.value })}
            error={row.key ? errorFor(row.key.trim()) : undefined}
          />
          <SelectField
            label={`Type of key ${index + 1}`}
            value={row.type}
            onChange={(e) => update(row.id, { type: e.target.value as SchemaType })}
            options={SCHEMA_TYPES.map((type) => ({ value: type, label: type }))}
          />
          <Button
            className="btn-small"
            aria-label={`Remove key ${index + 1}`}
            onClick={() => onChange(rows.filter((other) => other.id !== row.id))}
          >
            Remove
          </Button>
        </div>
      ))}
      <div>
        <Button className="btn-small" onClick={() => onChange([...rows, newRow()])} disabled={rows.length >= 50}>
          Add a key
        </Button>
      </div>
    </fieldset>
  );
}
