import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import type { PageProps } from '../../routes';
import { Badge } from '../../ui/badge';
import { Link } from '../../router';
import { RunStatusBadge } from './run-status';
import { ErrorMessage } from '../../ui/error-message';
import { Card, DescriptionList, Loading, PageHeader } from '../../ui/page';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import { stepLabel, type AutomationVersion, type Run, type RunStep } from './automation-types';
import { GraphCanvas } from './graph-canvas';

/** How long a step took, in words ("1.2 s", "2 days"). */
function duration(step: RunStep): string {
  if (!step.started_at || !step.completed_at) return '—';
  const ms = new Date(step.completed_at).getTime() - new Date(step.started_at).getTime();
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  if (ms < 86_400_000) return `${(ms / 3_600_000).toFixed(1)} h`;
  return `${(ms / 86_400_000).toFixed(1)} days`;
}

/** One run: its path through the graph of the version it pinned (visited steps lit), and each step's outcome and timing. */
export default function RunPage({ params }: PageProps) {
  const { id, runId } = params as { id: string; runId: string };
  const run = useQuery({
    queryKey: ['/automations', id, 'runs', runId],
    queryFn: () => api.get<Run>(`/automations/${id}/runs/${runId}`),
    // A live run moves on by itself (the scheduler): follow it until it ends.
    refetchInterval: (query) => (query.state.data?.status === 'running' ? 2000 : false),
  });
  const version = useQuery({
    queryKey: ['/automations', id, 'runs', runId, 'version'],
    queryFn: () => api.get<AutomationVersion>(`/automations/${id}/runs/${runId}/version`),
  });
  const r = run.data;
  const statuses = new Map((r?.steps ?? []).map((s) => [s.key, s.status]));
  return (
    <>
      <PageHeader
        title="Automation run"
        back={{ to: `/automations/${id}?tab=runs`, label: 'Runs' }}
        description={r ? <RunStatusBadge status={r.status} /> : null}
      />
      <ErrorMessage error={run.error ?? version.error} />
      {run.isLoading ? <Loading /> : null}
      {r ? (
        <Card>
          <DescriptionList
            items={[
              ['Run', <span className="mono">{r.id}</span>],
              ['Contact', <span className="mono">{r.contact_id}</span>],
              ['Status', <RunStatusBadge status={r.status} />],
              [
                'Version',
                version.data ? (
                  <span>
                    v{version.data.number}{' '}
                    {version.data.active ? <Badge tone="good">active</Badge> : <Badge tone="warn">older version</Badge>}
                  </span>
                ) : (
                  '…'
                ),
              ],
              ['Started', r.started_at ? <Time value={r.started_at} /> : '—'],
              ['Ended', r.completed_at ? <Time value={r.completed_at} /> : '—'],
            ]}
          />
          {r.error?.message ? (
            <div className="alert alert-error" role="alert">
              {r.error.message}
            </div>
          ) : null}
        </Card>
      ) : null}
      {version.data ? (
        <Card title="Path through the graph" id="run-path">
          <GraphCanvas label="The run's path through the graph" graph={version.data} runStatuses={statuses} />
        </Card>
      ) : null}
      {r ? (
        <Card title="Steps" id="run-steps">
          <DataTable
            caption="Steps of the run, in graph order"
            rows={r.steps}
            rowKey={(row) => row.key}
            columns={[
              { header: 'Step', cell: (row) => <span className="mono">{row.key}</span> },
              { header: 'Type', cell: (row) => stepLabel(row.type) },
              { header: 'Outcome', cell: (row) => <RunStatusBadge status={row.status} /> },
              {
                header: 'Started',
                className: 'nowrap',
                cell: (row) => (row.started_at ? <Time value={row.started_at} /> : '—'),
              },
              { header: 'Took', className: 'nowrap', cell: duration },
              {
                header: 'Details',
                cell: (row) =>
                  row.error?.message ? (
                    <span className="flow-run-error">{row.error.message}</span>
                  ) : row.output?.email_id ? (
                    <Link to={`/emails/${String(row.output.email_id)}`}>the email</Link>
                  ) : row.output?.skipped_reason ? (
                    String(row.output.skipped_reason)
                  ) : (
                    ''
                  ),
              },
            ]}
          />
        </Card>
      ) : null}
    </>
  );
}
