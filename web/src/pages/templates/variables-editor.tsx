import type { ReactNode } from 'react';
import { ApiError } from '../../api/client';
import { Button } from '../../ui/button';
import { newRowId, parseFallback, placeholderProblems, type Draft, type VariableRow } from './template-draft';
import { VARIABLE_TYPES, type VariableType } from './template-types';

/**
 * The declared variables (key, type, fallback, as the API stores them) and a sample value per
 * key for the preview and the test send (not saved). Placeholders used but not declared, or
 * declared but not used, are listed as they are typed (the API refuses both on save), each with
 * the one-click fix.
 */
export function VariablesEditor({
  draft,
  onChange,
  error,
}: {
  draft: Draft;
  onChange: (variables: VariableRow[]) => void;
  error: unknown;
}) {
  const rows = draft.variables;
  const problems = placeholderProblems(draft);
  const update = (id: number, change: Partial<VariableRow>) =>
    onChange(rows.map((row) => (row.id === id ? { ...row, ...change } : row)));
  const add = (key = '') => onChange([...rows, { id: newRowId(), key, type: 'string', fallback: '', sample: '' }]);
  const remove = (id: number) => onChange(rows.filter((row) => row.id !== id));
  const apiError = (index: number, row: VariableRow, field: 'key' | 'type' | 'fallback_value') => {
    if (!(error instanceof ApiError)) return undefined;
    return error.fieldErrors.find(
      (e) => e.path === `variables.${index}.${field}` || (field === 'key' && row.key && e.path === row.key.trim()),
    )?.message;
  };
  return (
    <div className="stack">
      {rows.length === 0 ? (
        <p className="muted">No variables. Write a placeholder like {'{{FIRST_NAME}}'} in the HTML, then declare it.</p>
      ) : (
        <div className="table-wrap">
          <table className="table variables-table">
            <caption className="visually-hidden">Declared variables</caption>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Type</th>
                <th scope="col">Fallback</th>
                <th scope="col">Sample value</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row, index) => {
                const name = row.key.trim() || `variable ${index + 1}`;
                const keyError = apiError(index, row, 'key');
                const fallbackError = parseFallback(row).error ?? apiError(index, row, 'fallback_value');
                return (
                  <tr key={row.id}>
                    <td>
                      <Cell error={keyError} id={`var-${row.id}-key`}>
                        <input
                          aria-label={`Key of ${name}`}
                          className="mono"
                          value={row.key}
                          onChange={(event) => update(row.id, { key: event.target.value })}
                          aria-invalid={keyError ? true : undefined}
                          aria-describedby={keyError ? `var-${row.id}-key-error` : undefined}
                          spellCheck={false}
                        />
                      </Cell>
                    </td>
                    <td>
                      <Cell>
                        <select
                          aria-label={`Type of ${name}`}
                          value={row.type}
                          onChange={(event) => update(row.id, { type: event.target.value as VariableType })}
                        >
                          {VARIABLE_TYPES.map((type) => (
                            <option key={type} value={type}>
                              {type}
                            </option>
                          ))}
                        </select>
                      </Cell>
                    </td>
                    <td>
                      <Cell error={fallbackError} id={`var-${row.id}-fallback`}>
                        {row.type === 'boolean' ? (
                          <select
                            aria-label={`Fallback of ${name}`}
                            value={row.fallback}
                            onChange={(event) => update(row.id, { fallback: event.target.value })}
                          >
                            <option value="">None (required)</option>
                            <option value="true">true</option>
                            <option value="false">false</option>
                          </select>
                        ) : (
                          <input
                            aria-label={`Fallback of ${name}`}
                            value={row.fallback}
                            placeholder="None (required)"
                            onChange={(event) => update(row.id, { fallback: event.target.value })}
                            aria-invalid={fallbackError ? true : undefined}
                            aria-describedby={fallbackError ? `var-${row.id}-fallback-error` : undefined}
                          />
                        )}
                      </Cell>
                    </td>
                    <td>
                      <Cell>
                        <input
                          aria-label={`Sample value of ${name}`}
                          value={row.sample}
                          placeholder={row.fallback ? 'The fallback' : 'For the preview'}
                          onChange={(event) => update(row.id, { sample: event.target.value })}
                        />
                      </Cell>
                    </td>
                    <td>
                      <Button variant="ghost" className="btn-small" onClick={() => remove(row.id)}>
                        Remove<span className="visually-hidden"> {name}</span>
                      </Button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <p className="field-hint">
        A send gives each key a value (a string or number); a key it leaves out takes its fallback, and a key without a
        fallback makes the send fail. Sample values are for the preview and the test below; they are not saved.
      </p>
      {problems.length > 0 ? (
        <ul className="placeholder-problems" aria-label="Placeholder problems">
          {problems.map((problem) => (
            <li key={`${problem.kind}-${problem.name}`}>
              <span>{problem.message}</span>{' '}
              {problem.kind === 'undeclared' ? (
                <Button className="btn-small" onClick={() => add(problem.name)}>
                  Declare {problem.name}
                </Button>
              ) : null}
              {problem.kind === 'unused' ? (
                <Button
                  className="btn-small"
                  variant="ghost"
                  onClick={() => onChange(rows.filter((row) => row.key.trim() !== problem.name))}
                >
                  Remove {problem.name}
                </Button>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
      <div>
        <Button onClick={() => add()}>Add a variable</Button>
      </div>
    </div>
  );
}

/** A table cell's control with its error below it (the field styles, without a visible label). */
function Cell({ children, error, id }: { children: ReactNode; error?: string; id?: string }) {
  return (
    <div className={`field field-cell${error ? ' field-invalid' : ''}`}>
      {children}
      {error ? (
        <span className="field-error" id={`${id}-error`} role="alert">
          {error}
        </span>
      ) : null}
    </div>
  );
}
