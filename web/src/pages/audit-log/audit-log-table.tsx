import { ApiError } from '../../api/client';
import { useCursorList } from '../../api/list';
import { useSearchParam } from '../../router';
import { Badge } from '../../ui/badge';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { Card, EmptyState, Loading } from '../../ui/page';
import { ListPager } from '../../ui/pager';
import { DataTable, type Column } from '../../ui/table';
import { Time } from '../../ui/time';
import { AuditEntryDialog } from './audit-entry-dialog';
import { AuditFilters, useAuditFilters } from './audit-filters';
import { actorTypeLabel, metadataText, type AuditLogEntry } from './audit-types';

const FILTERS = ['action', 'actor_type', 'resource_type', 'start_date', 'end_date', 'team_id'] as const;

/**
 * The audit log as a table over `path` (GET /audit-logs or GET /admin/audit-logs): filters in
 * the URL, cursor pages (Newer/Older, never a count), and an entry's detail in a dialog whose id
 * is in the URL too (?entry=<id>), so an entry can be linked to.
 */
export function AuditLogTable({
  path,
  detailPath,
  teams,
  teamName,
}: {
  path: string;
  detailPath: string | null;
  /** The operator's team filter and how a team id reads. */
  teams?: { value: string; label: string }[];
  teamName?: (id: string) => string;
}) {
  const { values } = useAuditFilters();
  const query = Object.fromEntries(
    FILTERS.filter((name) => values[name] && (name !== 'team_id' || teams)).map((name) => [name, values[name]]),
  );
  const list = useCursorList<AuditLogEntry>(path, query, { limit: 20 });
  const [entryId, setEntryId] = useSearchParam('entry');
  const errors = Object.fromEntries(FILTERS.map((name) => [name, fieldError(list.error, name)]));
  const fieldRefused = list.error instanceof ApiError && Object.values(errors).some(Boolean);
  const filtered = Object.keys(query).length > 0;
  const columns: Column<AuditLogEntry>[] = [
    { header: 'When', className: 'nowrap', cell: (row) => <Time value={row.created_at} /> },
    ...(teamName
      ? [{ header: 'Team', cell: (row: AuditLogEntry) => (row.team_id ? teamName(row.team_id) : '—') }]
      : []),
    {
      header: 'Actor',
      cell: (row) => (
        <>
          <span>{row.actor.name ?? row.actor.id ?? '—'}</span>{' '}
          <Badge tone={row.actor.type === 'system' ? 'neutral' : 'info'}>{actorTypeLabel(row.actor.type)}</Badge>
        </>
      ),
    },
    { header: 'Action', cell: (row) => <code>{row.action}</code> },
    {
      header: 'Resource',
      cell: (row) => (
        <>
          {row.resource.type}
          {row.resource.id ? <div className="muted mono break-all audit-id">{row.resource.id}</div> : null}
        </>
      ),
    },
    {
      header: 'IP',
      className: 'nowrap',
      cell: (row) => (row.ip ? <code title={row.user_agent ?? undefined}>{row.ip}</code> : '—'),
    },
    {
      header: 'Details',
      cell: (row) => (
        <span className="audit-metadata">
          {Object.entries(row.metadata ?? {})
            .slice(0, 3)
            .map(([name, value]) => `${name}: ${metadataText(value)}`)
            .join(' · ')}
        </span>
      ),
    },
    {
      header: <span className="visually-hidden">Open</span>,
      cell: (row) => (
        <Button
          className="btn-small"
          aria-label={`Open ${row.action} of ${row.created_at}`}
          onClick={() => setEntryId(row.id)}
        >
          Open
        </Button>
      ),
    },
  ];
  return (
    <Card>
      <AuditFilters key={values.action} errors={errors} teams={teams} />
      <ErrorMessage error={fieldRefused ? null : list.error} />
      {list.isLoading ? (
        <Loading />
      ) : list.rows.length === 0 && !list.hasPrevious ? (
        list.error ? null : (
          <EmptyState title={filtered ? 'No entry matches these filters' : 'Nothing recorded yet'}>
            {filtered
              ? 'Change or clear the filters.'
              : 'Changes to keys, domains, members, settings and sign-ins are recorded here.'}
          </EmptyState>
        )
      ) : (
        <DataTable caption="Audit log, newest first" rows={list.rows} rowKey={(row) => row.id} columns={columns} />
      )}
      <ListPager list={list} />
      <AuditEntryDialog
        id={entryId}
        path={detailPath}
        fromList={list.rows.find((row) => row.id === entryId)}
        onClose={() => setEntryId(null)}
      />
    </Card>
  );
}
