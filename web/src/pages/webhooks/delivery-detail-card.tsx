import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, type ReactNode } from 'react';
import { api } from '../../api/client';
import { useCursorList } from '../../api/list';
import { Button } from '../../ui/button';
import { ErrorMessage } from '../../ui/error-message';
import { DescriptionList, EmptyState, Loading } from '../../ui/page';
import { ListPager } from '../../ui/pager';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import { useToast } from '../../ui/toast';
import { DeliveryStatusBadge } from './delivery-status';
import { isOpen, type Attempt, type DeliveryDetail, type Webhook } from './webhook-types';

const POLL_MS = 3000;
/** How much of a receiver's answer a table cell shows; the whole kept excerpt is one click away. */
const EXCERPT_CHARS = 200;

/**
 * One delivery: its status and next retry, the payload it POSTs, every attempt (code, time
 * taken, the start of the receiver's answer) and Replay (same webhook-id, a new attempt).
 */
export function DeliveryDetailCard({
  endpoint,
  eventId,
  onClose,
}: {
  endpoint: Webhook;
  eventId: string;
  onClose: () => void;
}) {
  const client = useQueryClient();
  const toast = useToast();
  const base = `/webhooks/${endpoint.id}/events/${eventId}`;
  const detail = useQuery({
    queryKey: [base],
    queryFn: () => api.get<DeliveryDetail>(base),
    refetchInterval: (query) => (query.state.data && isOpen(query.state.data.status) ? POLL_MS : false),
  });
  const open = detail.data ? isOpen(detail.data.status) : false;
  const attempts = useCursorList<Attempt>(
    `${base}/attempts`,
    {},
    { limit: 10, refetchInterval: open ? POLL_MS : false },
  );
  // A finished attempt changes the count: fetch the attempts once more so the last one shows.
  const count = detail.data?.attempts;
  const refetchAttempts = attempts.refetch;
  useEffect(() => {
    if (count !== undefined) void refetchAttempts();
  }, [count, refetchAttempts]);
  const replay = useMutation({
    mutationFn: () => api.post(`${base}/replay`),
    onSuccess: async () => {
      toast('Delivery queued again');
      await client.invalidateQueries({ queryKey: [`/webhooks/${endpoint.id}/events`] });
      await client.invalidateQueries({ queryKey: [base] });
    },
  });
  // Opened from the list above: bring it into view and put focus on its heading.
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.scrollIntoView({ block: 'start' });
    heading.current?.focus({ preventScroll: true });
  }, []);
  const delivery = detail.data;
  return (
    <section className="card" aria-labelledby="delivery-title">
      <div className="card-header">
        <h2 id="delivery-title" ref={heading} tabIndex={-1}>
          Delivery {delivery ? <code>{delivery.type}</code> : null}
        </h2>
        <div className="card-actions">
          <Button
            variant="primary"
            busy={replay.isPending}
            disabledReason={endpoint.status === 'disabled' ? 'Enable the endpoint to replay.' : null}
            onClick={() => replay.mutate()}
          >
            Replay
          </Button>
          <Button onClick={onClose}>Close</Button>
        </div>
      </div>
      <ErrorMessage error={detail.error ?? replay.error} />
      {detail.isLoading ? <Loading /> : null}
      {delivery ? (
        <>
          <DescriptionList
            items={[
              ['Status', <DeliveryStatusBadge key="status" status={delivery.status} />],
              ['Event id (webhook-id)', <code key="id">{delivery.id}</code>],
              ['Created', <Time key="created" value={delivery.created_at} mode="absolute" />],
              ...(delivery.next_attempt_at
                ? [['Next attempt', <Time key="next" value={delivery.next_attempt_at} />] as [string, ReactNode]]
                : []),
            ]}
          />
          <details className="payload">
            <summary>Payload</summary>
            <pre>{JSON.stringify(delivery.payload, null, 2)}</pre>
          </details>
        </>
      ) : null}
      <h3>Attempts</h3>
      <ErrorMessage error={attempts.error} />
      {attempts.isLoading ? (
        <Loading />
      ) : (
        <DataTable
          caption="Attempts to deliver this event, newest first"
          rows={attempts.rows}
          rowKey={(row) => row.id}
          empty={
            <EmptyState title="No attempt yet">
              {open ? 'The first attempt is on its way; this refreshes by itself.' : null}
            </EmptyState>
          }
          columns={[
            { header: 'Time', className: 'nowrap', cell: (row) => <Time value={row.sent_at} mode="absolute" /> },
            { header: 'Answer', className: 'nowrap', cell: (row) => <AttemptCode attempt={row} /> },
            { header: 'Duration', className: 'num', cell: (row) => `${row.duration_ms} ms` },
            { header: 'Response', cell: (row) => <ResponseExcerpt attempt={row} /> },
          ]}
        />
      )}
      <ListPager list={attempts} />
    </section>
  );
}

/** The HTTP status the receiver answered; 0 means none came (the error says why). */
function AttemptCode({ attempt }: { attempt: Attempt }) {
  const code = attempt.http_status_code;
  if (code === 0) return <span className="badge badge-bad">no answer</span>;
  const tone = code >= 200 && code < 300 ? 'good' : code >= 500 ? 'bad' : 'warn';
  return <span className={`badge badge-${tone}`}>HTTP {code}</span>;
}

function ResponseExcerpt({ attempt }: { attempt: Attempt }) {
  const text = attempt.response;
  return (
    <div className="attempt-response">
      {attempt.error ? <p className="field-error">{attempt.error}</p> : null}
      {text ? (
        text.length > EXCERPT_CHARS ? (
          <details>
            <summary>
              <code>{text.slice(0, EXCERPT_CHARS)}…</code>
            </summary>
            <pre>{text}</pre>
          </details>
        ) : (
          <code>{text}</code>
        )
      ) : attempt.error ? null : (
        <span className="muted">empty</span>
      )}
    </div>
  );
}
