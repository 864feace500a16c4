import { useQuery } from '@tanstack/react-query';
import { api, type List } from '../../api/client';
import { Badge } from '../../ui/badge';
import { ErrorMessage } from '../../ui/error-message';
import { Card, Loading } from '../../ui/page';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import type { AutomationVersion } from './automation-types';

/**
 * Every version of the graph: which one new runs pin, and the runs still going on older ones
 * (a saved graph never moves a run in flight to the new version).
 */
export function VersionsCard({ automationId }: { automationId: string }) {
  const versions = useQuery({
    queryKey: ['/automations', automationId, 'versions'],
    queryFn: () => api.get<List<AutomationVersion>>(`/automations/${automationId}/versions`),
  });
  return (
    <Card title="Versions" id="automation-versions">
      <ErrorMessage error={versions.error} />
      {versions.isLoading ? <Loading /> : null}
      {versions.data ? (
        <DataTable
          caption="Versions"
          rows={versions.data.data}
          rowKey={(row) => row.id}
          columns={[
            {
              header: 'Version',
              cell: (row) => (
                <span>
                  v{row.number} {row.active ? <Badge tone="good">active</Badge> : null}
                </span>
              ),
            },
            { header: 'Steps', cell: (row) => row.steps.length },
            {
              header: 'Runs',
              cell: (row) => (
                <span>
                  {row.runs.running} running, {row.runs.completed} completed, {row.runs.failed} failed,{' '}
                  {row.runs.cancelled} cancelled
                  {!row.active && row.runs.running > 0 ? (
                    <>
                      {' '}
                      <Badge tone="warn">{row.runs.running} still pinned here</Badge>
                    </>
                  ) : null}
                </span>
              ),
            },
            { header: 'Published', className: 'nowrap', cell: (row) => <Time value={row.created_at} /> },
          ]}
        />
      ) : null}
    </Card>
  );
}
