import { useCursorList } from '../../api/list';
import { Link, useSearchParam } from '../../router';
import { StatusBadge } from '../../ui/badge';
import { Button } from '../../ui/button';
import { ErrorMessage } from '../../ui/error-message';
import { SelectField, TextField } from '../../ui/field';
import { Card, EmptyState, Loading, PageHeader } from '../../ui/page';
import { ListPager } from '../../ui/pager';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import type { BroadcastItem, BroadcastStatus } from './broadcast-types';
import { CreateBroadcastForm } from './create-broadcast-form';
import { useSegments } from './use-audience';

const STATUSES: BroadcastStatus[] = ['draft', 'scheduled', 'queued', 'sending', 'sent', 'canceled', 'failed'];

/** When the broadcast went or will go: sent, else scheduled, else nothing yet. */
function When({ row }: { row: BroadcastItem }) {
  if (row.sent_at)
    return (
      <>
        Sent <Time value={row.sent_at} />
      </>
    );
  if (row.scheduled_at)
    return (
      <>
        Scheduled for <Time value={row.scheduled_at} mode="absolute" />
      </>
    );
  return <span className="muted">—</span>;
}

/** The team's broadcasts, newest first; search and status filters live in the URL. */
export default function BroadcastsListPage() {
  const [adding, setAdding] = useSearchParam('new');
  const [search, setSearch] = useSearchParam('search');
  const [status, setStatus] = useSearchParam('status');
  const list = useCursorList<BroadcastItem>('/broadcasts', {
    search: search.trim() || undefined,
    status: status || undefined,
  });
  const segments = useSegments();
  const segmentName = (id: string | null) =>
    id ? (segments.data?.data.find((s) => s.id === id)?.name ?? <code>{id}</code>) : <span className="muted">—</span>;
  return (
    <>
      <PageHeader
        title="Broadcasts"
        description="Marketing emails to a segment of your contacts, with merge variables, the send checklist and their results."
        actions={
          adding ? null : (
            <Button variant="primary" onClick={() => setAdding('1')}>
              New broadcast
            </Button>
          )
        }
      />
      {adding ? <CreateBroadcastForm onCancel={() => setAdding(null)} /> : null}
      <Card>
        <form
          className="filters"
          role="search"
          aria-label="Filter broadcasts"
          onSubmit={(event) => event.preventDefault()}
        >
          <TextField
            label="Search"
            type="search"
            value={search}
            placeholder="Name or subject"
            onChange={(event) => setSearch(event.target.value || null)}
          />
          <SelectField
            label="Status"
            value={status}
            onChange={(event) => setStatus(event.target.value || null)}
            options={[{ value: '', label: 'Any' }, ...STATUSES.map((s) => ({ value: s, label: s }))]}
          />
        </form>
        <ErrorMessage error={list.error} />
        {list.isLoading ? (
          <Loading />
        ) : list.isEmpty ? (
          search || status ? (
            <EmptyState title="No broadcast matches">Change the search or the status filter.</EmptyState>
          ) : (
            <EmptyState title="No broadcasts yet">
              Create a draft, choose a segment, write it with merge variables and send it when the checklist passes.
            </EmptyState>
          )
        ) : (
          <DataTable
            caption="Broadcasts"
            rows={list.rows}
            rowKey={(row) => row.id}
            columns={[
              {
                header: 'Name',
                cell: (row) => (
                  <Link to={`/broadcasts/${row.id}`} className="break-all">
                    {row.name || 'Untitled broadcast'}
                  </Link>
                ),
              },
              { header: 'Status', cell: (row) => <StatusBadge status={row.status} /> },
              { header: 'Segment', cell: (row) => segmentName(row.segment_id ?? row.audience_id) },
              { header: 'Sent or scheduled', className: 'nowrap', cell: (row) => <When row={row} /> },
              { header: 'Created', className: 'nowrap', cell: (row) => <Time value={row.created_at} /> },
            ]}
          />
        )}
        <ListPager list={list} />
      </Card>
    </>
  );
}
