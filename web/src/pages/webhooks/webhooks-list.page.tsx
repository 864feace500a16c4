import { useCursorList } from '../../api/list';
import { Link, useSearchParam } from '../../router';
import { StatusBadge } from '../../ui/badge';
import { Button } from '../../ui/button';
import { ErrorMessage } from '../../ui/error-message';
import { Card, EmptyState, Loading, PageHeader } from '../../ui/page';
import { ListPager } from '../../ui/pager';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import { CreateWebhookForm } from './create-webhook-form';
import type { WebhookItem } from './webhook-types';

/** The team's webhook endpoints, and adding one (the form opens with ?new=1, so a link can open it). */
export default function WebhooksListPage() {
  const [adding, setAdding] = useSearchParam('new');
  const list = useCursorList<WebhookItem>('/webhooks');
  const empty = list.isEmpty;
  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Endpoints the appliance POSTs events to (deliveries, bounces, inbound mail…), signed with each endpoint's secret."
        actions={
          adding ? null : (
            <Button variant="primary" onClick={() => setAdding('1')}>
              Add endpoint
            </Button>
          )
        }
      />
      {adding ? <CreateWebhookForm onCancel={() => setAdding(null)} /> : null}
      <Card>
        <ErrorMessage error={list.error} />
        {list.isLoading ? (
          <Loading />
        ) : empty ? (
          <EmptyState title="No endpoints yet">
            Add one to hear about deliveries, bounces and complaints as they happen.
          </EmptyState>
        ) : (
          <DataTable
            caption="Webhook endpoints"
            rows={list.rows}
            rowKey={(row) => row.id}
            columns={[
              {
                header: 'Endpoint',
                cell: (row) => (
                  <Link to={`/webhooks/${row.id}`} className="mono break-all">
                    {row.endpoint}
                  </Link>
                ),
              },
              { header: 'Events', cell: (row) => <EventSummary events={row.events} /> },
              { header: 'Status', cell: (row) => <StatusBadge status={row.status} /> },
              { header: 'Created', className: 'nowrap', cell: (row) => <Time value={row.created_at} /> },
            ]}
          />
        )}
        <ListPager list={list} />
      </Card>
    </>
  );
}

/** The first few types and how many more: a long subscription stays one line. */
function EventSummary({ events }: { events: string[] }) {
  const shown = events.slice(0, 3);
  return (
    <span title={events.join(', ')}>
      {shown.map((type, index) => (
        <span key={type}>
          {index > 0 ? ', ' : ''}
          <code>{type}</code>
        </span>
      ))}
      {events.length > shown.length ? <span className="muted"> and {events.length - shown.length} more</span> : null}
    </span>
  );
}
