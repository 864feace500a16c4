import { useCursorList } from '../../api/list';
import { Link, useSearchParam } from '../../router';
import { Badge, StatusBadge } from '../../ui/badge';
import { Button } from '../../ui/button';
import { ErrorMessage } from '../../ui/error-message';
import { Card, EmptyState, Loading, PageHeader } from '../../ui/page';
import { ListPager } from '../../ui/pager';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import { isRunning, type ContactImport } from './import-types';
import { NewImport } from './new-import';

const number = new Intl.NumberFormat();

/** The team's CSV imports, newest first (refreshed while one runs), and a new upload. */
export default function ImportsPage() {
  const [adding, setAdding] = useSearchParam('new');
  const list = useCursorList<ContactImport>('/contacts/imports', {}, { refetchInterval: 5000 });
  const running = list.rows.some((row) => isRunning(row.status));
  return (
    <>
      <PageHeader
        title="Imports"
        description="Contacts from a CSV file: map its columns to fields and properties, check the values, and follow the import."
        actions={
          adding ? null : (
            <Button variant="primary" onClick={() => setAdding('1')}>
              New import
            </Button>
          )
        }
      />
      {adding ? <NewImport onCancel={() => setAdding(null)} /> : null}
      <Card>
        <ErrorMessage error={list.error} />
        {list.isLoading ? (
          <Loading />
        ) : list.isEmpty ? (
          <EmptyState title="No imports yet">Upload a CSV file with a header row and an email column.</EmptyState>
        ) : (
          <DataTable
            caption={running ? 'Imports (refreshed while one runs)' : 'Imports'}
            rows={list.rows}
            rowKey={(row) => row.id}
            columns={[
              {
                header: 'Uploaded',
                className: 'nowrap',
                cell: (row) => (
                  <Link to={`/imports/${row.id}`}>
                    <Time value={row.created_at} mode="absolute" />
                  </Link>
                ),
              },
              {
                header: 'Status',
                cell: (row) => (
                  <>
                    <StatusBadge status={row.status} />
                    {row.resumed_at ? (
                      <>
                        {' '}
                        <Badge tone="info">resumed</Badge>
                      </>
                    ) : null}
                  </>
                ),
              },
              { header: 'Rows', className: 'num', cell: (row) => number.format(row.counts.total) },
              { header: 'Created', className: 'num', cell: (row) => number.format(row.counts.created) },
              { header: 'Updated', className: 'num', cell: (row) => number.format(row.counts.updated) },
              { header: 'Skipped', className: 'num', cell: (row) => number.format(row.counts.skipped) },
              { header: 'Failed', className: 'num', cell: (row) => number.format(row.counts.failed) },
            ]}
          />
        )}
        <ListPager list={list} />
      </Card>
    </>
  );
}
