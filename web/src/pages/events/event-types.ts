export const SCHEMA_TYPES = ['string', 'number', 'boolean', 'date'] as const;
export type SchemaType = (typeof SCHEMA_TYPES)[number];
export type EventSchema = Record<string, SchemaType>;

/** GET /events item: a custom event definition. */
export type EventDefinition = {
  id: string;
  name: string;
  schema: EventSchema | null;
  created_at: string;
  updated_at: string | null;
};

/** One row of the schema editor (rows keep their order and an id while keys are typed). */
export type SchemaRow = { id: number; key: string; type: SchemaType };

let nextRow = 1;
export const newRow = (key = '', type: SchemaType = 'string'): SchemaRow => ({ id: nextRow++, key, type });

export const rowsOf = (schema: EventSchema | null): SchemaRow[] =>
  Object.entries(schema ?? {}).map(([key, type]) => newRow(key, type));

/** The schema the API takes: null when no key is declared (blank keys are left out). */
export function schemaOf(rows: SchemaRow[]): EventSchema | null {
  const entries = rows.filter((row) => row.key.trim() !== '').map((row) => [row.key.trim(), row.type] as const);
  return entries.length === 0 ? null : Object.fromEntries(entries);
}

/** A sample payload matching a schema: what the test form starts from. */
export function samplePayload(schema: EventSchema | null): Record<string, unknown> {
  const sample: Record<SchemaType, unknown> = {
    string: 'text',
    number: 1,
    boolean: true,
    date: new Date().toISOString().slice(0, 10),
  };
  return Object.fromEntries(Object.entries(schema ?? {}).map(([key, type]) => [key, sample[type]]));
}
