import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { useSearchParam } from '../../router';
import { StatusBadge } from '../../ui/badge';
import { Button } from '../../ui/button';
import { ErrorMessage } from '../../ui/error-message';
import { Card, DescriptionList, EmptyState, Loading } from '../../ui/page';
import { Time } from '../../ui/time';
import type { QueueEmail } from './admin-types';

/** One email's deliveries and every attempt of each, with the SMTP transcripts (what `mailroom queue show` prints). */
export function QueueEmailCard({ emailId }: { emailId: string }) {
  const [, setEmail] = useSearchParam('email');
  const answer = useQuery({
    queryKey: ['admin', 'queue', 'email', emailId],
    queryFn: () =>
      api.get<QueueEmail>(`/admin/queue/emails/${encodeURIComponent(emailId)}`, { query: { transcripts: true } }),
  });
  const data = answer.data;
  return (
    <Card
      title="Message attempts and transcripts"
      id="queue-email"
      actions={
        <Button variant="ghost" className="btn-small" onClick={() => setEmail(null)}>
          Close
        </Button>
      }
    >
      <ErrorMessage error={answer.error} />
      {answer.isLoading ? <Loading /> : null}
      {data ? (
        <>
          <DescriptionList
            items={[
              ['Email', <code key="id">{emailId}</code>],
              ['From', data.email?.from ?? '—'],
              ['Subject', data.email?.subject ?? '—'],
              ['Team', data.email ? <code key="team">{data.email.team_id}</code> : '—'],
              ['Created', <Time key="created" value={data.email?.created_at} />],
            ]}
          />
          {data.deliveries.length === 0 ? <EmptyState title="No delivery of this email" /> : null}
          {data.deliveries.map((delivery) => (
            <section key={delivery.id} className="admin-delivery" aria-label={`Delivery to ${delivery.recipient}`}>
              <h3 className="admin-subtitle">
                {delivery.recipient} <StatusBadge status={delivery.state} />
              </h3>
              <p className="muted">
                Lane {delivery.lane} · {delivery.attempts} attempt{delivery.attempts === 1 ? '' : 's'}
                {delivery.egress_ip ? ` · from ${delivery.egress_ip}` : ''}
                {delivery.next_attempt_at ? ' · next ' : ''}
                {delivery.next_attempt_at ? <Time value={delivery.next_attempt_at} /> : null}
              </p>
              {delivery.attempt_log.length === 0 ? <p className="muted">Not tried yet.</p> : null}
              <ol className="admin-attempts">
                {delivery.attempt_log.map((attempt, index) => (
                  <li key={index}>
                    <p>
                      <Time value={attempt.at} mode="absolute" /> <StatusBadge status={attempt.outcome} />{' '}
                      {attempt.mx_host ? `at ${attempt.mx_host}` : ''}
                      {attempt.egress_ip ? ` from ${attempt.egress_ip}` : ''}
                      {attempt.duration_ms !== null ? ` in ${attempt.duration_ms} ms` : ''}
                    </p>
                    {attempt.reply ? <p className="admin-reply">{attempt.reply}</p> : null}
                    {attempt.transcript ? (
                      <details>
                        <summary>SMTP transcript</summary>
                        <pre className="admin-transcript" tabIndex={0} aria-label="SMTP transcript">
                          {attempt.transcript}
                        </pre>
                      </details>
                    ) : null}
                  </li>
                ))}
              </ol>
            </section>
          ))}
        </>
      ) : null}
    </Card>
  );
}
