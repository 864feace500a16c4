import { ApiError } from '../../api/client';
import { useCursorList } from '../../api/list';
import { Link } from '../../router';
import { Badge } from '../../ui/badge';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { Card, EmptyState, Loading, PageHeader } from '../../ui/page';
import { ListPager } from '../../ui/pager';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import { KeyName } from './key-name';
import { LogFilters, useLogFilters } from './log-filters';
import { statusTone, type LogItem } from './log-types';

/** Requests the team's keys (and sessions) made to the API, newest first, filtered in the URL. */
export default function LogsListPage() {
  const { values } = useLogFilters();
  const list = useCursorList<LogItem>('/logs', values, { limit: 50 });
  // A refused filter (400 on status or path) is marked on its field; the rest in words above.
  const errors = { status: fieldError(list.error, 'status'), path: fieldError(list.error, 'path') };
  const filtered = Object.values(values).some(Boolean);
  return (
    <>
      <PageHeader
        title="Logs"
        description="Every request made to the API with this team's keys: what was asked, what it answered, how long it took."
      />
      <Card>
        <LogFilters key={`${values.status}|${values.path}`} errors={errors} />
        <ErrorMessage error={list.error instanceof ApiError && (errors.status || errors.path) ? null : list.error} />
        {list.isLoading ? (
          <Loading />
        ) : list.rows.length === 0 && !list.hasPrevious ? (
          <EmptyState title={filtered ? 'No request matches these filters' : 'No requests yet'}>
            {filtered ? 'Change or clear the filters.' : 'Requests made with an API key appear here.'}
          </EmptyState>
        ) : (
          <DataTable
            caption="Request logs, newest first"
            rows={list.rows}
            rowKey={(row) => row.id}
            columns={[
              { header: 'Time', className: 'nowrap', cell: (row) => <Time value={row.created_at} /> },
              { header: 'Method', cell: (row) => <code>{row.method}</code> },
              {
                header: 'Endpoint',
                cell: (row) => (
                  <Link to={`/logs/${row.id}`} className="mono break-all">
                    {row.endpoint}
                  </Link>
                ),
              },
              {
                header: 'Status',
                cell: (row) => <Badge tone={statusTone(row.response_status)}>{row.response_status}</Badge>,
              },
              { header: 'Source', cell: (row) => row.source },
              { header: 'Latency', className: 'num', cell: (row) => `${row.latency_ms} ms` },
              { header: 'API key', cell: (row) => <KeyName id={row.api_key_id} source={row.source} /> },
            ]}
          />
        )}
        <ListPager list={list} />
      </Card>
    </>
  );
}
