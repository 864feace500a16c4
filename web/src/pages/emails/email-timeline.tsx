import { StatusBadge } from '../../ui/badge';
import { Card, EmptyState } from '../../ui/page';
import { Time } from '../../ui/time';
import type { EmailEvent } from './email-types';

type Bounce = { type?: string; subType?: string; message?: string; diagnosticCode?: string[]; reason?: string };

const asRecord = (value: unknown): Record<string, unknown> | null =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
const asStrings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

/** What an event adds beyond its type, in words: the recipients it is about, the bounce and its diagnostic. */
function EventDetail({ event }: { event: EmailEvent }) {
  const data = event.data;
  const to = asStrings(data.to);
  const bounce = (asRecord(data.bounce) ?? asRecord(data.suppressed)) as Bounce | null;
  const failed = asRecord(data.failed);
  const delay = asRecord(data.delay);
  const open = asRecord(data.open);
  const click = asRecord(data.click);
  // Events about every recipient (sent, scheduled, canceled) need not repeat them.
  const perRecipient = !['email.sent', 'email.scheduled', 'email.canceled'].includes(event.type);
  return (
    <div className="event-detail">
      {perRecipient && to.length ? <div>To {to.join(', ')}</div> : null}
      {bounce ? (
        <div>
          {[bounce.type, bounce.subType].filter(Boolean).join(' · ')}
          {bounce.message ? `: ${bounce.message}` : ''}
          {bounce.diagnosticCode?.length ? (
            <pre className="diagnostic" tabIndex={0}>
              {bounce.diagnosticCode.join('\n')}
            </pre>
          ) : null}
        </div>
      ) : null}
      {failed && typeof failed.reason === 'string' ? <div>{failed.reason}</div> : null}
      {delay ? (
        <div>
          {typeof delay.type === 'string' ? `${delay.type}. ` : ''}
          {typeof delay.expirationTime === 'string' ? (
            <>
              Retried until <Time value={delay.expirationTime} mode="absolute" />
            </>
          ) : null}
        </div>
      ) : null}
      {open ? (
        <div className="muted">
          {[open.ipAddress, open.userAgent].filter((v) => typeof v === 'string' && v).join(' · ')}
        </div>
      ) : null}
      {click && typeof click.link === 'string' ? (
        <div>
          Link <code>{click.link}</code>
        </div>
      ) : null}
    </div>
  );
}

/** What happened to the email, oldest first (GET /emails/{id}/events). */
export function EmailTimeline({
  events,
  polling,
  hasMore,
}: {
  events: EmailEvent[];
  polling: boolean;
  hasMore: boolean;
}) {
  return (
    <Card
      title="Timeline"
      id="timeline"
      actions={
        polling ? (
          <span className="muted live-note">
            <span className="spinner" aria-hidden="true" /> Updating as it happens
          </span>
        ) : null
      }
    >
      {events.length === 0 ? (
        <EmptyState title="Nothing has happened yet">
          <p>The email is accepted and waiting for the queue.</p>
        </EmptyState>
      ) : (
        <ol className="timeline" aria-label="Events, oldest first" aria-live="polite">
          {events.map((event) => (
            <li key={event.id} data-event-type={event.type}>
              <div className="event-head">
                <StatusBadge status={event.type.replace(/^email\./, '')} />
                <Time value={event.created_at} mode="absolute" />
              </div>
              <EventDetail event={event} />
            </li>
          ))}
        </ol>
      )}
      {hasMore ? <p className="muted">Only the first 100 events are shown.</p> : null}
    </Card>
  );
}
