import { Link } from '../../router';
import { StatusBadge } from '../../ui/badge';
import { Card, EmptyState } from '../../ui/page';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import type { EmailWebhookDelivery } from './email-types';

/** The webhook deliveries the email's events caused (GET /emails/{id}/webhook-deliveries). */
export function EmailWebhookDeliveries({
  deliveries,
  hasMore,
}: {
  deliveries: EmailWebhookDelivery[];
  hasMore: boolean;
}) {
  return (
    <Card title="Webhook deliveries" id="webhook-deliveries">
      <DataTable
        caption="Webhook deliveries caused by this email"
        rows={deliveries}
        rowKey={(delivery) => delivery.id}
        empty={
          <EmptyState title="No webhook was called for this email">
            <p>
              Endpoints subscribed to email events get one delivery per event. <Link to="/webhooks">Webhooks</Link>
            </p>
          </EmptyState>
        }
        columns={[
          { header: 'Event', cell: (delivery) => <code>{delivery.event_type}</code> },
          {
            header: 'Endpoint',
            className: 'wrap-anywhere',
            cell: (delivery) => (
              <Link to={`/webhooks/${delivery.webhook_id}`}>{delivery.endpoint ?? 'Deleted endpoint'}</Link>
            ),
          },
          { header: 'Status', cell: (delivery) => <StatusBadge status={delivery.status} /> },
          {
            header: 'Last answer',
            className: 'num',
            cell: (delivery) => (delivery.last_status_code === null ? '—' : `HTTP ${delivery.last_status_code}`),
          },
          { header: 'Attempts', className: 'num', cell: (delivery) => delivery.attempts },
          {
            header: 'Last attempt',
            className: 'nowrap',
            cell: (delivery) => <Time value={delivery.last_attempt_at} />,
          },
        ]}
      />
      {hasMore ? <p className="muted">Only the first 100 deliveries are shown.</p> : null}
    </Card>
  );
}
