import { useApiKeyNames } from './log-types';

/**
 * The name of the key that made a request. A request from the dashboard names no key (its
 * `source` is `dashboard`); an OAuth app's token is not one of the team's keys either.
 */
export function KeyName({ id, source }: { id: string | null; source?: string }) {
  const keys = useApiKeyNames();
  if (!id) return <span className="muted">{source === 'dashboard' ? 'dashboard session' : '—'}</span>;
  const key = keys.data?.get(id);
  if (key) return <span>{key.name}</span>;
  if (!keys.data) return <span className="muted">…</span>;
  return (
    <span className="muted" title={`Credential ${id}: not one of the team's API keys`}>
      an app (OAuth)
    </span>
  );
}
