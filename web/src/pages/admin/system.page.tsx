import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { Badge } from '../../ui/badge';
import { ErrorMessage } from '../../ui/error-message';
import { Card, DescriptionList, Loading, PageHeader } from '../../ui/page';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import type { SystemStatus } from './admin-types';
import { RecentErrorsCard } from './recent-errors-card';
import { OperatorRequestsCard } from './operator-requests-card';

const ok = (value: boolean | null, words: [string, string] = ['ok', 'failing']) =>
  value === null ? (
    <Badge>not used</Badge>
  ) : value ? (
    <Badge tone="good">{words[0]}</Badge>
  ) : (
    <Badge tone="bad">{words[1]}</Badge>
  );

/** The appliance itself: its processes, readiness, versions, database, Redis, metrics, recent errors. */
export default function SystemPage() {
  const system = useQuery({
    queryKey: ['admin', 'system'],
    queryFn: () => api.get<SystemStatus>('/admin/system'),
    refetchInterval: (query) => (query.state.error ? false : 15_000),
  });
  const data = system.data;
  return (
    <>
      <PageHeader title="System" description="The appliance's processes and the services it depends on." />
      <ErrorMessage error={system.error} />
      {system.isLoading ? <Loading /> : null}
      {data ? (
        <>
          <Card title="Health" id="health">
            <DescriptionList
              items={[
                [
                  'Readiness',
                  <span key="ready">
                    {ok(data.readiness.status === 'ok', ['ready', 'degraded'])}
                    {data.readiness.failed.length > 0 ? ` failing: ${data.readiness.failed.join(', ')}` : ''}
                  </span>,
                ],
                [
                  'Database',
                  <span key="db">
                    {ok(data.database.ok)} {data.database.dialect}
                    {data.versions.database ? ` ${data.versions.database}` : ''}
                    {data.database.error ? ` — ${data.database.error}` : ''}
                  </span>,
                ],
                [
                  'Redis',
                  <span key="redis">
                    {data.redis.configured ? ok(data.redis.ok) : <Badge>not configured</Badge>}
                    {data.versions.redis ? ` ${data.versions.redis}` : ''}
                    {data.redis.error ? ` — ${data.redis.error}` : ''}
                  </span>,
                ],
                ['Mailroom', data.versions.app],
                ['Node.js', data.versions.node],
                [
                  'Metrics',
                  data.metrics.enabled ? (
                    <ul key="metrics" className="admin-plain-list">
                      {/* Named by process when the API says which is which. */}
                      {(
                        data.metrics.by_process ?? data.metrics.addresses.map((address) => ({ process: '', address }))
                      ).map(({ process, address }) => (
                        <li key={`${process}/${address}`}>
                          {process ? `${process}: ` : ''}
                          <code>{address}</code>
                        </li>
                      ))}
                    </ul>
                  ) : (
                    'Not exposed (metrics.enabled is off)'
                  ),
                ],
                ['Checked', <Time key="at" value={data.generated_at} mode="absolute" />],
              ]}
            />
          </Card>
          <Card title="Readiness checks" id="readiness">
            <DataTable
              caption="Readiness checks"
              rowKey={(row) => row.name}
              rows={data.readiness.checks}
              columns={[
                { header: 'Check', cell: (row) => row.name },
                { header: 'Result', cell: (row) => ok(row.ok) },
                { header: 'Took', cell: (row) => `${row.duration_ms} ms`, className: 'num' },
                { header: 'Error', cell: (row) => row.error ?? <span className="muted">—</span> },
              ]}
            />
          </Card>
          <Card title="Processes" id="processes">
            <DataTable
              caption="Processes"
              rowKey={(row) => `${row.node}/${row.id}/${row.pid}`}
              rows={data.processes}
              empty={<p className="muted">No process has reported in (they do so while running).</p>}
              columns={[
                { header: 'Process', cell: (row) => row.id },
                { header: 'Node', cell: (row) => row.node },
                { header: 'PID', cell: (row) => row.pid, className: 'num' },
                { header: 'Health', cell: (row) => ok(row.alive, ['alive', 'not answering']) },
                { header: 'Started', cell: (row) => <Time value={row.started_at} /> },
                { header: 'Lease until', cell: (row) => <Time value={row.expires_at} /> },
              ]}
            />
          </Card>
          <RecentErrorsCard />
          <OperatorRequestsCard />
        </>
      ) : null}
    </>
  );
}
