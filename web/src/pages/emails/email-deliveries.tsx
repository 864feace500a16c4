import { StatusBadge } from '../../ui/badge';
import { Card, DescriptionList, EmptyState } from '../../ui/page';
import { Time } from '../../ui/time';
import type { Delivery, DeliveryAttempt } from './email-types';

const tlsInWords = (used: boolean | null) =>
  used === true ? 'STARTTLS' : used === false ? 'None (plain text)' : 'Not recorded';

function Attempt({ attempt, number }: { attempt: DeliveryAttempt; number: number }) {
  const reply = attempt.reply;
  return (
    <li className="attempt">
      <div className="event-head">
        <strong>Attempt {number}</strong>
        <StatusBadge status={attempt.outcome} />
        <Time value={attempt.at} mode="absolute" />
        <span className="muted">{(attempt.duration_ms / 1000).toFixed(1)} s</span>
      </div>
      <DescriptionList
        items={[
          ['MX host', attempt.mx_host ?? <span className="muted">—</span>],
          [
            'Sent from',
            attempt.egress_ip ? (
              <>
                <code>{attempt.egress_ip}</code>
                {attempt.egress_region ? ` in the ${attempt.egress_region} pool` : ''}
                {attempt.egress_helo ? ` (HELO ${attempt.egress_helo})` : ''}
              </>
            ) : (
              <span className="muted">—</span>
            ),
          ],
          ['TLS', tlsInWords(attempt.tls.used)],
          [
            'Reply',
            reply ? <code className="smtp-reply">{reply.raw}</code> : <span className="muted">No reply recorded</span>,
          ],
        ]}
      />
      {attempt.transcript ? (
        <details className="transcript">
          <summary>SMTP transcript</summary>
          <pre tabIndex={0}>{attempt.transcript}</pre>
        </details>
      ) : null}
    </li>
  );
}

/**
 * Each recipient's copy on its way out (GET /emails/{id}/deliveries): its queue state and its
 * recent SMTP attempts, with the server's reply and the conversation itself.
 */
export function EmailDeliveries({ deliveries }: { deliveries: Delivery[] }) {
  return (
    <Card title="Delivery attempts" id="deliveries">
      {deliveries.length === 0 ? (
        <EmptyState title="No delivery yet">
          <p>Scheduled, canceled and simulator emails, and recipients that were suppressed, have none.</p>
        </EmptyState>
      ) : (
        <div className="stack">
          {deliveries.map((delivery) => (
            <section key={delivery.id} className="delivery" aria-label={`Delivery to ${delivery.recipient}`}>
              <div className="event-head">
                <h3>{delivery.recipient}</h3>
                <StatusBadge status={delivery.state} />
                <span className="muted">
                  {delivery.attempts} attempt{delivery.attempts === 1 ? '' : 's'}
                </span>
              </div>
              {delivery.next_attempt_at ? (
                <p className="muted">
                  Next attempt <Time value={delivery.next_attempt_at} />; gives up <Time value={delivery.expires_at} />.
                </p>
              ) : null}
              {delivery.attempt_log.length ? (
                <ol className="attempts">
                  {delivery.attempt_log.map((attempt, index) => (
                    // The API keeps the last ten attempts, oldest first: number them from the total.
                    <Attempt
                      key={`${attempt.at}-${index}`}
                      attempt={attempt}
                      number={
                        Math.max(delivery.attempts, delivery.attempt_log.length) -
                        delivery.attempt_log.length +
                        index +
                        1
                      }
                    />
                  ))}
                </ol>
              ) : (
                <p className="muted">Not tried yet.</p>
              )}
            </section>
          ))}
        </div>
      )}
    </Card>
  );
}
