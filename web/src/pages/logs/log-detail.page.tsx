import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import type { PageProps } from '../../routes';
import { Link } from '../../router';
import { Badge } from '../../ui/badge';
import { CopyButton } from '../../ui/copy-button';
import { ErrorMessage } from '../../ui/error-message';
import { Card, DescriptionList, Loading, PageHeader } from '../../ui/page';
import { Time } from '../../ui/time';
import { KeyName } from './key-name';
import { statusTone, type LogDetail } from './log-types';

/**
 * One request: who made it, what it answered, and its bodies as the appliance kept them
 * (secrets redacted; the answer's body only for a failed request, as the API records it).
 */
export default function LogDetailPage({ params }: PageProps) {
  const id = params.id!;
  const log = useQuery({ queryKey: ['/logs', id], queryFn: () => api.get<LogDetail>(`/logs/${id}`) });
  const back = { to: '/logs', label: 'Logs' };
  if (log.isLoading) return <Loading />;
  const entry = log.data;
  if (!entry)
    return (
      <>
        <PageHeader title="Request" back={back} />
        <ErrorMessage error={log.error} />
      </>
    );
  return (
    <>
      <PageHeader
        title={`${entry.method} ${entry.endpoint}`}
        back={back}
        description={<Time value={entry.created_at} mode="absolute" />}
      />
      <Card title="Request" id="log-request">
        <DescriptionList
          items={[
            ['Status', <Badge tone={statusTone(entry.response_status)}>{entry.response_status}</Badge>],
            ['Method', <code>{entry.method}</code>],
            ['Endpoint', <code className="break-all">{entry.endpoint}</code>],
            ['Time', <Time value={entry.created_at} mode="absolute" />],
            ['Latency', `${entry.latency_ms} ms`],
            [
              'Request id',
              <span>
                <code>{entry.request_id}</code> <CopyButton value={entry.request_id} label="Copy the request id" />
              </span>,
            ],
            ['API key', <KeyName id={entry.api_key_id} source={entry.source} />],
            ['Source', entry.source],
            ['User agent', entry.user_agent ? <code className="break-all">{entry.user_agent}</code> : '—'],
            [
              'Email',
              entry.email_id ? (
                <Link to={`/emails/${entry.email_id}`}>Open the email this request created</Link>
              ) : (
                <span className="muted">None created</span>
              ),
            ],
          ]}
        />
      </Card>
      <Card title="Request body" id="log-request-body">
        <JsonBody value={entry.request_body} empty="No body (or none kept)." label="Request body" />
      </Card>
      <Card title="Response body" id="log-response-body">
        <JsonBody
          value={entry.response_body}
          empty={
            entry.response_status >= 400
              ? 'No body was kept.'
              : 'Kept only for failed requests (4xx and 5xx): this one succeeded.'
          }
          label="Response body"
        />
      </Card>
    </>
  );
}

/** A kept body, pretty-printed: JSON as JSON, anything else as its text. */
function JsonBody({ value, empty, label }: { value: unknown; empty: string; label: string }) {
  if (value === null || value === undefined || value === '') return <p className="muted">{empty}</p>;
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  return (
    // A long body scrolls: focusable (keyboard scrolling) and named, as a region.
    <pre role="region" aria-label={`${label} (JSON)`} tabIndex={0}>
      {text}
    </pre>
  );
}
