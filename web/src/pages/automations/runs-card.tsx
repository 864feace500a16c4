import { useCursorList } from '../../api/list';
import { Link, useSearchParam } from '../../router';
import { RunStatusBadge } from './run-status';
import { ErrorMessage } from '../../ui/error-message';
import { SelectField } from '../../ui/field';
import { Card, EmptyState, Loading } from '../../ui/page';
import { ListPager } from '../../ui/pager';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import { RUN_STATUSES, type RunItem } from './automation-types';

/** The runs of an automation, newest first, filtered by status; each opens its path through the graph. */
export function RunsCard({ automationId }: { automationId: string }) {
  const [status, setStatus] = useSearchParam('run_status');
  const list = useCursorList<RunItem>(
    `/automations/${automationId}/runs`,
    { status: status || undefined },
    { refetchInterval: 5000 },
  );
  return (
    <Card title="Runs" id="automation-runs">
      <div className="filters">
        <SelectField
          label="Run status"
          value={status}
          onChange={(e) => setStatus(e.target.value)}
          options={[{ value: '', label: 'Any' }, ...RUN_STATUSES.map((s) => ({ value: s, label: s }))]}
        />
      </div>
      <ErrorMessage error={list.error} />
      {list.isLoading ? (
        <Loading />
      ) : list.rows.length === 0 ? (
        <EmptyState title={status ? `No ${status} runs` : 'No runs yet'}>
          A run starts when a contact triggers the event while the automation is enabled.
        </EmptyState>
      ) : (
        <DataTable
          caption="Runs"
          rows={list.rows}
          rowKey={(row) => row.id}
          columns={[
            {
              header: 'Run',
              cell: (row) => (
                <Link to={`/automations/${automationId}/runs/${row.id}`} className="mono">
                  {row.id}
                </Link>
              ),
            },
            { header: 'Status', cell: (row) => <RunStatusBadge status={row.status} /> },
            {
              header: 'Started',
              className: 'nowrap',
              cell: (row) => <Time value={row.started_at ?? row.created_at} />,
            },
            {
              header: 'Ended',
              className: 'nowrap',
              cell: (row) => (row.completed_at ? <Time value={row.completed_at} /> : <span className="muted">—</span>),
            },
          ]}
        />
      )}
      <ListPager list={list} />
    </Card>
  );
}
