import { Badge } from '../../ui/badge';
import type { CsvPreview } from './csv-preview';
import type { PropertyDef } from './import-types';
import { checkColumn, readAnyway, type Target } from './type-check';

const FIELD_TARGETS = [
  { value: '', label: 'Not imported' },
  { value: 'email', label: 'Email' },
  { value: 'first_name', label: 'First name' },
  { value: 'last_name', label: 'Last name' },
  { value: 'unsubscribed', label: 'Unsubscribed' },
];

/**
 * One row per column of the file: its first values, where it goes (a contact field or a declared
 * property), and the type check of every row against that target, before anything is sent.
 */
export function ColumnMapping({
  csv,
  targets,
  properties,
  onChange,
}: {
  csv: CsvPreview;
  targets: Target[];
  properties: PropertyDef[];
  onChange: (targets: Target[]) => void;
}) {
  const options = [
    ...FIELD_TARGETS,
    ...properties.map((p) => ({ value: `property:${p.key}`, label: `Property: ${p.key} (${p.type})` })),
  ];
  return (
    <div className="table-wrap">
      <table className="table column-mapping">
        <caption className="visually-hidden">Columns of the file and where they go</caption>
        <thead>
          <tr>
            <th scope="col">Column</th>
            <th scope="col">First values</th>
            <th scope="col">Import as</th>
            <th scope="col">Type check</th>
          </tr>
        </thead>
        <tbody>
          {csv.header.map((name, index) => {
            const target = targets[index] ?? '';
            const check = checkColumn(csv, index, target, properties);
            const id = `column-${index}`;
            return (
              <tr key={index} data-column={name}>
                <th scope="row" id={`${id}-name`}>
                  <code>{name || `(column ${index + 1})`}</code>
                </th>
                <td className="muted">
                  {csv.records
                    .slice(0, 3)
                    .map((r) => r.fields[index] ?? '')
                    .join(', ') || '—'}
                </td>
                <td>
                  <label className="visually-hidden" htmlFor={id}>
                    Import column {name} as
                  </label>
                  <select
                    id={id}
                    value={target}
                    onChange={(e) => onChange(targets.map((t, i) => (i === index ? e.target.value : t)))}
                  >
                    {options.map((o) => (
                      <option key={o.value} value={o.value}>
                        {o.label}
                      </option>
                    ))}
                  </select>
                </td>
                <td className="type-check" data-testid={`check-${name}`}>
                  {check ? (
                    <>
                      <Badge tone={check.ok ? 'good' : 'warn'}>{check.ok ? 'OK' : 'Will fail'}</Badge> {check.message}
                    </>
                  ) : readAnyway(name, targets, properties) ? (
                    <span>
                      <Badge tone="info">Read anyway</Badge> The appliance reads a column named like a field or property
                      when nothing else is mapped to it.
                    </span>
                  ) : (
                    <span className="muted">Not imported</span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
