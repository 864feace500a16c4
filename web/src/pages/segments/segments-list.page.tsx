import { useCursorList } from '../../api/list';
import { Link, useRouter } from '../../router';
import { Button } from '../../ui/button';
import { ErrorMessage } from '../../ui/error-message';
import { Card, EmptyState, Loading, PageHeader } from '../../ui/page';
import { ListPager } from '../../ui/pager';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import type { SegmentItem } from './segment-types';

/** The team's segments, newest first (the list carries no filter: a segment's page shows it). */
export default function SegmentsListPage() {
  const { navigate } = useRouter();
  const list = useCursorList<SegmentItem>('/segments');
  return (
    <>
      <PageHeader
        title="Segments"
        description="Groups of contacts chosen by a filter, by hand, or both. Broadcasts are sent to a segment."
        actions={
          <Button variant="primary" onClick={() => navigate('/segments/new')}>
            New segment
          </Button>
        }
      />
      <Card>
        <ErrorMessage error={list.error} />
        {list.isLoading ? (
          <Loading />
        ) : list.isEmpty ? (
          <EmptyState title="No segments yet">
            Build a filter over your contacts’ fields, properties and topics, and see how many match as you type.
          </EmptyState>
        ) : (
          <DataTable
            caption="Segments"
            rows={list.rows}
            rowKey={(row) => row.id}
            columns={[
              {
                header: 'Name',
                cell: (row) => (
                  <Link to={`/segments/${row.id}`} className="break-all">
                    {row.name}
                  </Link>
                ),
              },
              { header: 'Created', className: 'nowrap', cell: (row) => <Time value={row.created_at} /> },
            ]}
          />
        )}
        <ListPager list={list} />
      </Card>
    </>
  );
}
