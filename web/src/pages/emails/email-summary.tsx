import type { ReactNode } from 'react';
import { StatusBadge } from '../../ui/badge';
import { CopyButton } from '../../ui/copy-button';
import { Card, DescriptionList } from '../../ui/page';
import { Time } from '../../ui/time';
import type { EmailDetail } from './email-types';

const addresses = (list: string[] | null | undefined): ReactNode =>
  list && list.length ? list.join(', ') : <span className="muted">—</span>;

/** The email's envelope as sent: who, what, when, and its tags. */
export function EmailSummary({ email }: { email: EmailDetail }) {
  const items: [ReactNode, ReactNode][] = [
    ['Status', <StatusBadge key="s" status={email.last_event} />],
    ['From', email.from],
    ['To', addresses(email.to)],
  ];
  if (email.cc?.length) items.push(['Cc', addresses(email.cc)]);
  if (email.bcc?.length) items.push(['Bcc', addresses(email.bcc)]);
  if (email.reply_to?.length) items.push(['Reply-To', addresses(email.reply_to)]);
  items.push(['Subject', email.subject || <span className="muted">(no subject)</span>]);
  items.push(['Created', <Time key="c" value={email.created_at} mode="absolute" />]);
  if (email.scheduled_at) items.push(['Scheduled for', <Time key="sa" value={email.scheduled_at} mode="absolute" />]);
  items.push([
    'Tags',
    email.tags?.length ? (
      <ul className="tag-list">
        {email.tags.map((tag) => (
          <li key={tag.name}>
            <code>
              {tag.name}={tag.value}
            </code>
          </li>
        ))}
      </ul>
    ) : (
      <span className="muted">None</span>
    ),
  ]);
  if (email.message_id)
    items.push([
      'Message-ID',
      <span key="m" className="with-copy">
        <code>{email.message_id}</code> <CopyButton value={email.message_id} label="Copy the Message-ID" />
      </span>,
    ]);
  items.push([
    'Email id',
    <span key="i" className="with-copy">
      <code>{email.id}</code> <CopyButton value={email.id} label="Copy the email id" />
    </span>,
  ]);
  return (
    <Card title="Message" id="summary">
      <DescriptionList items={items} />
    </Card>
  );
}
