import { useState, type FormEvent } from 'react';
import { useSearchParam } from '../../router';
import { Button } from '../../ui/button';
import { SelectField, TextField } from '../../ui/field';
import { useApiKeyNames } from './log-types';

const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'];
/** `source` as the API records it: the plain API, or an SDK named by its User-Agent. */
const SOURCES = [
  'api',
  'sdk:node',
  'sdk:python',
  'sdk:ruby',
  'sdk:go',
  'sdk:php',
  'sdk:java',
  'sdk:rust',
  'sdk:dotnet',
];

/** The URL parameters the logs list filters on: the same names as GET /logs takes. */
export function useLogFilters() {
  const [method, setMethod] = useSearchParam('method');
  const [status, setStatus] = useSearchParam('status');
  const [path, setPath] = useSearchParam('path');
  const [apiKeyId, setApiKeyId] = useSearchParam('api_key_id');
  const [source, setSource] = useSearchParam('source');
  return {
    values: { method, status, path, api_key_id: apiKeyId, source },
    set: { method: setMethod, status: setStatus, path: setPath, api_key_id: setApiKeyId, source: setSource },
  };
}

/**
 * Method, key and source apply at once; status and path (typed) apply on Enter or "Filter", so a
 * half-typed "4" is not sent as a status.
 */
export function LogFilters({ errors }: { errors: { status?: string; path?: string } }) {
  const { values, set } = useLogFilters();
  const keys = useApiKeyNames();
  const [status, setStatus] = useState(values.status);
  const [path, setPath] = useState(values.path);
  const apply = (event: FormEvent) => {
    event.preventDefault();
    set.status(status.trim());
    set.path(path.trim());
  };
  const any = Object.values(values).some(Boolean);
  return (
    <form className="filters" onSubmit={apply} aria-label="Filter the logs">
      <SelectField
        label="Method"
        value={values.method}
        onChange={(event) => set.method(event.target.value)}
        options={[{ value: '', label: 'Any' }, ...METHODS.map((value) => ({ value, label: value }))]}
      />
      <TextField
        label="Status"
        name="status"
        placeholder="404 or 4xx"
        size={9}
        value={status}
        onChange={(event) => setStatus(event.target.value)}
        error={errors.status}
      />
      <TextField
        label="Path starts with"
        name="path"
        placeholder="/emails"
        value={path}
        onChange={(event) => setPath(event.target.value)}
        error={errors.path}
      />
      <SelectField
        label="API key"
        value={values.api_key_id}
        onChange={(event) => set.api_key_id(event.target.value)}
        options={[
          { value: '', label: 'Any' },
          ...[...(keys.data?.values() ?? [])].map((key) => ({
            value: key.id,
            label: key.status === 'active' ? key.name : `${key.name} (${key.status})`,
          })),
          // A credential that is no key on the first page (a session, from a log's link): still shown.
          ...(values.api_key_id && keys.data && !keys.data.has(values.api_key_id)
            ? [{ value: values.api_key_id, label: `Id ${values.api_key_id.slice(0, 8)}…` }]
            : []),
        ]}
      />
      <SelectField
        label="Source"
        value={values.source}
        onChange={(event) => set.source(event.target.value)}
        options={[{ value: '', label: 'Any' }, ...SOURCES.map((value) => ({ value, label: value }))]}
      />
      <Button type="submit">Filter</Button>
      {any ? (
        <Button
          variant="ghost"
          onClick={() => {
            setStatus('');
            setPath('');
            for (const clear of Object.values(set)) clear(null);
          }}
        >
          Clear filters
        </Button>
      ) : null}
    </form>
  );
}
