import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api } from '../../api/client';
import { useCursorList } from '../../api/list';
import { useSearchParam } from '../../router';
import { Button } from '../../ui/button';
import { ErrorMessage } from '../../ui/error-message';
import { SelectField } from '../../ui/field';
import { Card, EmptyState, Loading } from '../../ui/page';
import { ListPager } from '../../ui/pager';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import { useToast } from '../../ui/toast';
import { DeliveryDetailCard } from './delivery-detail-card';
import { DeliveryStatusBadge } from './delivery-status';
import { isOpen, type Delivery, type Webhook } from './webhook-types';

/** How often the list is fetched again while a delivery waits for an attempt or a retry. */
const POLL_MS = 3000;

/**
 * Every event sent to the endpoint, newest first, with a test event on demand. The chosen
 * delivery (?event=) opens below with its attempts; the list refreshes itself while any
 * delivery on the page is still pending or retrying.
 */
export function DeliveriesCard({ endpoint }: { endpoint: Webhook }) {
  const path = `/webhooks/${endpoint.id}/events`;
  // Whether the page shows an open delivery is known once the list has answered: kept as state
  // so the list's own refetch interval can follow it. Sending or replaying refetches the list,
  // whose new pending row starts the polling.
  const [polling, setPolling] = useState(false);
  const list = useCursorList<Delivery>(path, {}, { refetchInterval: polling ? POLL_MS : false });
  const anyOpen = list.rows.some((row) => isOpen(row.status));
  useEffect(() => setPolling(anyOpen), [anyOpen]);
  const [selected, setSelected] = useSearchParam('event');
  return (
    <>
      <Card title="Deliveries" id="deliveries" actions={<TestEventForm endpoint={endpoint} onSent={setSelected} />}>
        <ErrorMessage error={list.error} />
        {list.isLoading ? (
          <Loading />
        ) : list.rows.length === 0 && !list.hasPrevious ? (
          <EmptyState title="Nothing sent yet">
            Events this endpoint listens to appear here as they happen. Send a test event to try your receiver now.
          </EmptyState>
        ) : (
          <DataTable
            caption="Events sent to this endpoint"
            rows={list.rows}
            rowKey={(row) => row.id}
            columns={[
              { header: 'Event', cell: (row) => <code>{row.type}</code> },
              { header: 'Status', cell: (row) => <DeliveryStatusBadge status={row.status} /> },
              { header: 'Created', className: 'nowrap', cell: (row) => <Time value={row.created_at} /> },
              {
                header: <span className="visually-hidden">Attempts</span>,
                className: 'nowrap',
                cell: (row) => (
                  <Button
                    variant="ghost"
                    className="btn-small"
                    aria-pressed={row.id === selected}
                    aria-label={`Attempts of ${row.type} at ${new Date(row.created_at).toLocaleString()}`}
                    onClick={() => setSelected(row.id)}
                  >
                    {row.id === selected ? 'Shown below' : 'Attempts'}
                  </Button>
                ),
              },
            ]}
          />
        )}
        {anyOpen ? (
          <p className="muted" role="status">
            Some deliveries are still waiting: this list refreshes every few seconds.
          </p>
        ) : null}
        <ListPager list={list} />
      </Card>
      {selected ? (
        <DeliveryDetailCard key={selected} endpoint={endpoint} eventId={selected} onClose={() => setSelected(null)} />
      ) : null}
    </>
  );
}

/** POST /webhooks/{id}/test: a sample of one subscribed type, marked `data.test: true`. */
function TestEventForm({ endpoint, onSent }: { endpoint: Webhook; onSent: (eventId: string) => void }) {
  const client = useQueryClient();
  const toast = useToast();
  const [type, setType] = useState(endpoint.events[0] ?? '');
  // The chosen type may have been unsubscribed since: fall back to the first one.
  const current = endpoint.events.includes(type) ? type : (endpoint.events[0] ?? '');
  const send = useMutation({
    mutationFn: () => api.post<{ id: string; type: string }>(`/webhooks/${endpoint.id}/test`, { type: current }),
    onSuccess: async (sent) => {
      toast(`Test ${sent.type} event queued`);
      await client.invalidateQueries({ queryKey: [`/webhooks/${endpoint.id}/events`] });
      onSent(sent.id);
    },
  });
  return (
    <form
      className="test-event-form"
      aria-label="Send a test event"
      onSubmit={(event) => {
        event.preventDefault();
        send.mutate();
      }}
    >
      <SelectField
        label="Test event type"
        value={current}
        onChange={(event) => setType(event.target.value)}
        options={endpoint.events.map((value) => ({ value, label: value }))}
      />
      <Button
        type="submit"
        busy={send.isPending}
        disabledReason={endpoint.status === 'disabled' ? 'Enable the endpoint to send it events.' : null}
      >
        Send test event
      </Button>
      <ErrorMessage error={send.error} />
    </form>
  );
}
