import { useQuery } from '@tanstack/react-query';
import { api, type List } from '../../api/client';
import { useCursorList } from '../../api/list';
import { Link, useRouter, useSearchParam } from '../../router';
import { StatusBadge } from '../../ui/badge';
import { Button } from '../../ui/button';
import { ErrorMessage } from '../../ui/error-message';
import { SelectField } from '../../ui/field';
import { Card, EmptyState, Loading, PageHeader } from '../../ui/page';
import { ListPager } from '../../ui/pager';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import type { AutomationItem, AutomationVersion } from './automation-types';

/** The team's automations: status, the active version and its runs; a new one opens the editor. */
export default function AutomationsListPage() {
  const { navigate } = useRouter();
  const [status, setStatus] = useSearchParam('status');
  const list = useCursorList<AutomationItem>('/automations', { status: status || undefined });
  return (
    <>
      <PageHeader
        title="Automations"
        description="Flows that start when a contact triggers an event: delays, conditions and emails, drawn as a graph."
        actions={
          <Button variant="primary" onClick={() => navigate('/automations/new')}>
            New automation
          </Button>
        }
      />
      <Card>
        <div className="filters">
          <SelectField
            label="Status"
            value={status}
            onChange={(e) => setStatus(e.target.value)}
            options={[
              { value: '', label: 'Any' },
              { value: 'enabled', label: 'Enabled' },
              { value: 'disabled', label: 'Disabled' },
            ]}
          />
        </div>
        <ErrorMessage error={list.error} />
        {list.isLoading ? (
          <Loading />
        ) : list.isEmpty ? (
          <EmptyState title="No automations yet">Create one to send a welcome series or a reminder.</EmptyState>
        ) : (
          <DataTable
            caption="Automations"
            rows={list.rows}
            rowKey={(row) => row.id}
            columns={[
              { header: 'Name', cell: (row) => <Link to={`/automations/${row.id}`}>{row.name}</Link> },
              { header: 'Status', cell: (row) => <StatusBadge status={row.status} /> },
              { header: 'Active version, runs', cell: (row) => <ActiveVersion id={row.id} /> },
              { header: 'Created', className: 'nowrap', cell: (row) => <Time value={row.created_at} /> },
            ]}
          />
        )}
        <ListPager list={list} />
      </Card>
    </>
  );
}

/** The active version's number and the runs of every version (one small call per row, cached). */
function ActiveVersion({ id }: { id: string }) {
  const versions = useQuery({
    queryKey: ['/automations', id, 'versions'],
    queryFn: () => api.get<List<AutomationVersion>>(`/automations/${id}/versions`),
  });
  if (!versions.data) return <span className="muted">…</span>;
  const active = versions.data.data.find((v) => v.active);
  const total = (key: 'running' | 'completed' | 'failed') =>
    versions.data.data.reduce((sum, v) => sum + v.runs[key], 0);
  return (
    <span>
      v{active?.number ?? '?'} · {total('running')} running, {total('completed')} completed
      {total('failed') ? `, ${total('failed')} failed` : ''}
    </span>
  );
}
