import type { PageProps } from '../../routes';
import { ErrorMessage } from '../../ui/error-message';
import { Card, Loading, PageHeader } from '../../ui/page';
import { AttachmentsCard } from './attachments-card';
import { EmailDiagnosis } from './email-diagnosis';
import { EmailDeliveries } from './email-deliveries';
import { EmailScheduleActions } from './email-schedule-actions';
import { EmailShare } from './email-share';
import { EmailSummary } from './email-summary';
import { EmailTimeline } from './email-timeline';
import type { EmailEvent } from './email-types';
import { EmailWebhookDeliveries } from './email-webhook-deliveries';
import { MessageBody } from './message-body';
import { useEmailActivity } from './use-email-activity';

/** The custom headers given at sending, which every email.* event repeats (the email object has none). */
function sentHeaders(events: EmailEvent[] | undefined): Record<string, string> | null {
  const headers = events?.[0]?.data.headers;
  if (!headers || typeof headers !== 'object') return null;
  return Object.fromEntries(
    Object.entries(headers).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

/**
 * One sent email: what was sent, what happened to it (events, SMTP attempts, webhook calls), its
 * attachments, and what can still be done (reschedule or cancel, share). While it is in flight
 * the page asks again every few seconds, so the timeline moves without a reload.
 */
export default function EmailDetailPage({ params }: PageProps) {
  const { email, deliveries, events, webhooks, attachments, polling } = useEmailActivity(params.id!);
  const back = { to: '/emails', label: 'Emails' };
  if (email.isLoading) return <Loading label="Loading the email…" />;
  const data = email.data;
  if (!data)
    return (
      <>
        <PageHeader title="Email" back={back} />
        <ErrorMessage error={email.error} title="This email could not be shown." />
      </>
    );
  return (
    <>
      <PageHeader
        title={data.subject || '(no subject)'}
        back={back}
        description={`To ${data.to.join(', ')}`}
        actions={<EmailScheduleActions email={data} />}
      />
      <div className="email-page">
        <div className="stack email-main">
          <EmailSummary email={data} />
          <MessageBody
            html={data.html}
            text={data.text}
            headers={sentHeaders(events.data?.data)}
            headersNote="The custom headers given when the email was sent. Mailroom adds From, To, Subject, Date, Message-ID, MIME and DKIM headers itself."
            subject={data.subject}
          />
          {attachments.error ? <ErrorMessage error={attachments.error} title="Attachments:" /> : null}
          <AttachmentsCard attachments={attachments.data?.data ?? []} />
        </div>
        <div className="stack email-side">
          {events.error ? (
            <Card title="Timeline">
              <ErrorMessage error={events.error} />
            </Card>
          ) : events.data ? (
            <EmailTimeline events={events.data.data} polling={polling} hasMore={Boolean(events.data.has_more)} />
          ) : (
            <Loading label="Loading the timeline…" />
          )}
          {deliveries.error ? (
            <Card title="Delivery attempts">
              <ErrorMessage error={deliveries.error} />
            </Card>
          ) : deliveries.data ? (
            <EmailDeliveries deliveries={deliveries.data.data} />
          ) : null}
          {webhooks.error ? (
            <Card title="Webhook deliveries">
              <ErrorMessage error={webhooks.error} />
            </Card>
          ) : webhooks.data ? (
            <EmailWebhookDeliveries deliveries={webhooks.data.data} hasMore={Boolean(webhooks.data.has_more)} />
          ) : null}
          <EmailDiagnosis emailId={data.id} />
          <EmailShare emailId={data.id} />
        </div>
      </div>
    </>
  );
}
