import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { api, type List } from '../../api/client';
import type { PageProps } from '../../routes';
import { Badge } from '../../ui/badge';
import { CopyButton } from '../../ui/copy-button';
import { ErrorMessage } from '../../ui/error-message';
import { Card, DescriptionList, Loading, PageHeader } from '../../ui/page';
import { Time } from '../../ui/time';
import { AttachmentsCard } from '../emails/attachments-card';
import { EmailShare } from '../emails/email-share';
import type { Attachment } from '../emails/email-types';
import { MessageBody } from '../emails/message-body';
import { ForwardCard } from './forward-card';
import { ReceivedAuthentication } from './received-authentication';
import type { ReceivedDetail } from './received-types';

const addresses = (list: string[] | null | undefined): ReactNode =>
  list && list.length ? list.join(', ') : <span className="muted">—</span>;

/**
 * One received email: who sent it and whether that checked out (SPF, DKIM, DMARC, ARC), its
 * content (HTML sandboxed), headers, attachments, the raw message, forwarding, and a share link.
 */
export default function ReceivedDetailPage({ params }: PageProps) {
  const id = params.id!;
  const email = useQuery({
    queryKey: ['/emails/receiving', id],
    queryFn: ({ signal }) => api.get<ReceivedDetail>(`/emails/receiving/${id}`, { signal }),
    // The raw link in the answer is valid for an hour: a fresh one well before.
    refetchInterval: 30 * 60_000,
  });
  const attachments = useQuery({
    queryKey: ['/emails/receiving', id, 'attachments'],
    queryFn: ({ signal }) => api.get<List<Attachment>>(`/emails/receiving/${id}/attachments`, { signal }),
    enabled: Boolean(email.data?.attachments.length),
    refetchInterval: 30 * 60_000,
  });
  const back = { to: '/received', label: 'Received' };
  if (email.isLoading) return <Loading label="Loading the email…" />;
  const data = email.data;
  if (!data)
    return (
      <>
        <PageHeader title="Received email" back={back} />
        <ErrorMessage error={email.error} title="This email could not be shown." />
      </>
    );
  const items: [ReactNode, ReactNode][] = [
    ['From', data.from],
    ['To', addresses(data.to)],
  ];
  if (data.cc.length) items.push(['Cc', addresses(data.cc)]);
  if (data.reply_to.length) items.push(['Reply-To', addresses(data.reply_to)]);
  items.push(['Delivered to', addresses(data.received_for)]);
  items.push(['Subject', data.subject || <span className="muted">(no subject)</span>]);
  items.push(['Received', <Time key="r" value={data.created_at} mode="absolute" />]);
  if (data.dropped_reason)
    items.push([
      'Not stored',
      <Badge key="d" tone="warn">
        {data.dropped_reason.replace(/_/g, ' ')}
      </Badge>,
    ]);
  items.push([
    'Message-ID',
    <span key="m" className="with-copy">
      <code>{data.message_id}</code> <CopyButton value={data.message_id} label="Copy the Message-ID" />
    </span>,
  ]);
  return (
    <>
      <PageHeader
        title={data.subject || '(no subject)'}
        back={back}
        description={`From ${data.from}`}
        actions={
          data.raw ? (
            // A signed link valid for an hour (no credential needed): the browser saves the .eml.
            <a className="btn btn-secondary" href={data.raw.download_url} download="message.eml">
              Download .eml
            </a>
          ) : null
        }
      />
      <div className="email-page">
        <div className="stack email-main">
          <Card title="Message" id="summary">
            <DescriptionList items={items} />
          </Card>
          <MessageBody html={data.html} text={data.text} headers={data.headers} subject={data.subject} />
          {attachments.error ? <ErrorMessage error={attachments.error} title="Attachments:" /> : null}
          <AttachmentsCard attachments={attachments.data?.data ?? data.attachments} />
        </div>
        <div className="stack email-side">
          <ReceivedAuthentication authentication={data.authentication} />
          <ForwardCard subject={data.subject} rawUrl={data.raw?.download_url ?? null} />
          <EmailShare emailId={data.id} />
        </div>
      </div>
    </>
  );
}
