import { InvalidParameterError, type FieldError } from '../../../lib/errors.js';
import type { ContactProperty } from '../properties/contact-property.types.js';
import type { ColumnMap } from './contact-import.schemas.js';
import type { CellReading, Column, ImportPlan } from './contact-import.types.js';

const FIELDS = ['email', 'first_name', 'last_name', 'unsubscribed'] as const;

/**
 * Which column fills which contact field, decided once from the header at upload, so a column
 * map naming a column the file does not have is refused at once (422 invalid_parameter naming
 * column_map.<field>), not discovered by a worker later. Column names match trimmed and
 * case-insensitively. Without a mapping, a field takes the column of its own name (`email`,
 * `first_name`, `last_name`, `unsubscribed`), and a declared property the map does not name
 * takes the column named as its key, if there is one.
 *
 * A property mapped with a type must agree with its declared type; `boolean` fits both (stored
 * "true"/"false" in a string property, 1/0 in a number property): contact properties are only
 * strings and numbers.
 */
export function resolveColumns(
  header: string[],
  map: ColumnMap | null,
  declared: Map<string, ContactProperty>,
): Pick<ImportPlan, 'columns' | 'properties'> {
  const byName = new Map<string, number>();
  header.forEach((name, index) => {
    if (!byName.has(name.toLowerCase())) byName.set(name.toLowerCase(), index);
  });
  const find = (name: string): Column | undefined => {
    const index = byName.get(name.trim().toLowerCase());
    return index === undefined ? undefined : { index, name: header[index]! };
  };
  const errors: FieldError[] = [];
  const absent = (path: string, name: string) =>
    errors.push({ path, message: `the file has no column "${name}" (its columns: ${listed(header)})` });

  const columns: Partial<ImportPlan['columns']> = {};
  for (const field of FIELDS) {
    const wanted = map?.[field];
    const column = find(wanted ?? field);
    if (column) columns[field] = column;
    else if (wanted !== undefined) absent(`column_map.${field}`, wanted);
  }
  if (!columns.email && map?.email === undefined)
    errors.push({
      path: 'column_map.email',
      message: `the file has no "email" column: name the address column in column_map.email (its columns: ${listed(header)})`,
    });

  const properties: ImportPlan['properties'] = [];
  const explicit = Object.entries(map?.properties ?? {});
  const named = new Set(explicit.map(([key]) => key.toLowerCase()));
  const unnamed = [...declared.values()]
    .filter(
      (p) =>
        !named.has(p.key.toLowerCase()) && find(p.key) && !(FIELDS as readonly string[]).includes(p.key.toLowerCase()),
    )
    .map((p) => [p.key, p.key] as const);
  for (const [key, mapping] of [...explicit, ...unnamed]) {
    const path = `column_map.properties.${key}`;
    const property = declared.get(key.toLowerCase());
    const columnName = typeof mapping === 'string' ? mapping : mapping.column;
    const read: CellReading = (typeof mapping === 'string' ? undefined : mapping.type) ?? property?.type ?? 'string';
    const column = find(columnName);
    if (!property) errors.push({ path, message: `unknown property "${key}": declare it first` });
    else if (read !== 'boolean' && read !== property.type)
      errors.push({ path, message: `"${property.key}" is a ${property.type} property: it cannot be read as ${read}` });
    else if (!column) absent(path, columnName);
    else properties.push({ propertyId: property.id, key: property.key, type: property.type, read, column });
  }

  if (errors.length > 0)
    throw new InvalidParameterError(`Invalid ${errors[0]!.path}: ${errors[0]!.message}`, { errors });
  return { columns: columns as ImportPlan['columns'], properties };
}

function listed(header: string[]): string {
  const names = header.slice(0, 20).map((name) => JSON.stringify(name));
  return header.length > 20 ? `${names.join(', ')}, ...` : names.join(', ');
}
