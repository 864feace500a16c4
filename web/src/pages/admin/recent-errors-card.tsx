import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { ErrorMessage } from '../../ui/error-message';
import { Card, EmptyState, Loading } from '../../ui/page';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import type { ErrorLog } from './admin-types';

/** The admin API's requests are logged under this team id, which no team has (GET /admin/logs). */
const OPERATOR_LOG_TEAM_ID = '00000000-0000-0000-0000-000000000000';

/** The API's recent server errors (5xx), and where the processes' own logs are to be read. */
export function RecentErrorsCard() {
  const errors = useQuery({
    queryKey: ['admin', 'system', 'errors'],
    queryFn: () => api.get<ErrorLog>('/admin/system/errors', { query: { limit: 50 } }),
  });
  const data = errors.data;
  return (
    <Card title="Recent errors" id="recent-errors">
      <ErrorMessage error={errors.error} />
      {errors.isLoading ? <Loading /> : null}
      {data ? (
        <>
          <p className="muted">{data.source}</p>
          <p className="muted">{data.logs_go_to}</p>
          <DataTable
            caption="Recent errors"
            rowKey={(row) => `${row.at}/${row.request_id ?? row.path}`}
            rows={data.data}
            empty={<EmptyState title="No recent error" />}
            columns={[
              { header: 'When', cell: (row) => <Time value={row.at} /> },
              { header: 'Request', cell: (row) => <code>{`${row.method} ${row.path}`}</code> },
              { header: 'Status', cell: (row) => row.status, className: 'num' },
              { header: 'Error', cell: (row) => row.error_name ?? <span className="muted">—</span> },
              {
                header: 'Team',
                cell: (row) =>
                  row.team_id === OPERATOR_LOG_TEAM_ID ? (
                    <span>operator console</span>
                  ) : row.team_id ? (
                    <code>{row.team_id}</code>
                  ) : (
                    <span className="muted">—</span>
                  ),
              },
              { header: 'Request ID', cell: (row) => (row.request_id ? <code>{row.request_id}</code> : '—') },
            ]}
          />
        </>
      ) : null}
    </Card>
  );
}
