import { ConfirmDialog } from '../../ui/dialog';
import type { QueueFilter } from './admin-types';
import { count as formatCount, messages } from './format';

const describe = (filter: QueueFilter) =>
  [
    filter.domain ? `to ${filter.domain}` : '',
    filter.email_id ? `of email ${filter.email_id}` : '',
    filter.team_id ? `of team ${filter.team_id}` : '',
  ]
    .filter(Boolean)
    .join(', ');

/** The last word before waiting messages are removed for good: how many, and which. */
export function PurgeDialog({
  open,
  filter,
  count,
  onConfirm,
  onClose,
  busy,
  error,
}: {
  open: boolean;
  filter: QueueFilter;
  count: number;
  onConfirm: () => void;
  onClose: () => void;
  busy: boolean;
  error: unknown;
}) {
  const capped = count >= 10_000;
  return (
    <ConfirmDialog
      open={open}
      title={`Purge ${capped ? '10,000 or more messages' : messages(count)}?`}
      confirmLabel={`Purge ${capped ? 'them' : messages(count)}`}
      onConfirm={onConfirm}
      onClose={onClose}
      busy={busy}
      error={error}
    >
      <p>
        {capped ? '10,000 or more' : formatCount(count)} waiting {count === 1 ? 'message' : 'messages'}{' '}
        {describe(filter)} will be removed from the queue for good. Each is recorded as <code>email.failed</code> for
        its team; nothing is sent.
      </p>
    </ConfirmDialog>
  );
}
