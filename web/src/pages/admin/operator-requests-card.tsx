import { useQuery } from '@tanstack/react-query';
import { api, type List } from '../../api/client';
import { Badge } from '../../ui/badge';
import { ErrorMessage } from '../../ui/error-message';
import { Card, EmptyState, Loading } from '../../ui/page';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';

type AdminLog = {
  id: string;
  created_at: string;
  method: string;
  endpoint: string;
  response_status: number;
  latency_ms: number;
};

/** The admin API's own request log (GET /admin/logs): what operators did, newest first. */
export function OperatorRequestsCard() {
  const logs = useQuery({
    queryKey: ['admin', 'logs'],
    queryFn: () => api.get<List<AdminLog>>('/admin/logs', { query: { limit: 20 } }),
  });
  return (
    <Card title="Operator requests" id="operator-requests">
      <p className="muted">
        Every request of the admin API, kept a year; in no team&rsquo;s log. The 20 newest are shown here.
      </p>
      <ErrorMessage error={logs.error} />
      {logs.isLoading ? <Loading /> : null}
      {logs.data ? (
        <DataTable
          caption="Operator requests, newest first"
          rowKey={(row) => row.id}
          rows={logs.data.data}
          empty={<EmptyState title="No operator request yet" />}
          columns={[
            { header: 'When', cell: (row) => <Time value={row.created_at} /> },
            { header: 'Request', cell: (row) => <code>{`${row.method} ${row.endpoint}`}</code> },
            {
              header: 'Status',
              cell: (row) => <Badge tone={row.response_status >= 400 ? 'bad' : 'good'}>{row.response_status}</Badge>,
            },
            { header: 'Time', cell: (row) => `${row.latency_ms} ms`, className: 'num' },
          ]}
        />
      ) : null}
    </Card>
  );
}
