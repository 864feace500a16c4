import type { ReactNode } from 'react';
import { Badge } from '../../ui/badge';
import { Button } from '../../ui/button';
import { DescriptionList } from '../../ui/page';
import { SandboxedHtml } from '../../ui/sandboxed-html';
import { Time } from '../../ui/time';
import type { InboxMessage } from './inbox-types';

const list = (addresses: string[]): ReactNode =>
  addresses.length ? addresses.join(', ') : <span className="muted">—</span>;

/**
 * A thread's emails, oldest first: who wrote to whom and when, and the body. HTML is the
 * sender's and untrusted: it is shown only in the sandboxed frame (no script, nothing remote
 * until asked); without HTML the text part is shown as text.
 */
export function ThreadMessages({
  messages,
  onReply,
  onForward,
}: {
  messages: InboxMessage[];
  onReply: (message: InboxMessage) => void;
  onForward: (message: InboxMessage) => void;
}) {
  return (
    <ol className="inbox-messages" aria-label="Emails in this thread">
      {messages.map((message, index) => {
        const items: [ReactNode, ReactNode][] = [
          ['From', message.from],
          ['To', list(message.to)],
        ];
        if (message.cc.length) items.push(['Cc', list(message.cc)]);
        items.push(['Date', <Time key="d" value={message.received_at} mode="absolute" />]);
        return (
          <li
            key={message.id}
            className={`inbox-message inbox-message-${message.direction}`}
            aria-label={`Email ${index + 1}: ${message.direction === 'inbound' ? 'received from' : 'sent by'} ${message.from}`}
          >
            <div className="inbox-message-head">
              <div>
                <Badge tone={message.direction === 'inbound' ? 'neutral' : 'info'}>
                  {message.direction === 'inbound' ? 'Received' : 'Sent'}
                </Badge>{' '}
                {message.attachments.length ? (
                  <span className="muted">
                    {message.attachments.length} attachment{message.attachments.length === 1 ? '' : 's'}:{' '}
                    {message.attachments.map((file) => file.filename ?? 'unnamed').join(', ')}
                  </span>
                ) : null}
                <DescriptionList items={items} />
              </div>
              <div className="row-actions">
                <Button
                  className="btn-small"
                  onClick={() => onReply(message)}
                  aria-label={`Reply to email ${index + 1}`}
                >
                  Reply
                </Button>
                <Button
                  className="btn-small"
                  onClick={() => onForward(message)}
                  aria-label={`Forward email ${index + 1}`}
                >
                  Forward
                </Button>
              </div>
            </div>
            {message.html ? (
              <SandboxedHtml
                html={message.html}
                title={`The HTML of email ${index + 1} from ${message.from}`}
                height={280}
              />
            ) : message.text ? (
              <pre className="message-text" tabIndex={0}>
                {message.text}
              </pre>
            ) : (
              <p className="muted">No body.</p>
            )}
          </li>
        );
      })}
    </ol>
  );
}
