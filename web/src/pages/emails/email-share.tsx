import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { Button } from '../../ui/button';
import { CopyButton } from '../../ui/copy-button';
import { ConfirmDialog } from '../../ui/dialog';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { SelectField } from '../../ui/field';
import { Card } from '../../ui/page';
import { Time } from '../../ui/time';
import { useToast } from '../../ui/toast';

const DURATIONS = [
  { value: '1 hour', label: '1 hour' },
  { value: '1 day', label: '1 day' },
  { value: '48 hours', label: '48 hours (the longest)' },
];

type Share = { url: string; expiresAt: string };

/**
 * A read-only public link to the email (POST /emails/{id}/share), and revoking every live link
 * (DELETE). The API answers only the URL: the expiry shown is the one asked for, counted from
 * the moment it answered (the link itself holds no readable expiry).
 */
export function EmailShare({ emailId }: { emailId: string }) {
  const toast = useToast();
  const [duration, setDuration] = useState('1 day');
  const [share, setShare] = useState<Share | null>(null);
  const [confirmRevoke, setConfirmRevoke] = useState(false);
  const create = useMutation({
    mutationFn: () =>
      api.post<{ url: string; expires_at: string }>(`/emails/${emailId}/share`, { expires_in: duration }),
    onSuccess: (answer) => setShare({ url: answer.url, expiresAt: answer.expires_at }),
  });
  const revoke = useMutation({
    mutationFn: () => api.delete<{ revoked: number }>(`/emails/${emailId}/share`),
    onSuccess: (answer) => {
      setShare(null);
      setConfirmRevoke(false);
      toast(answer.revoked === 1 ? 'The share link was revoked' : `${answer.revoked} share links were revoked`);
    },
  });
  return (
    <Card title="Share" id="share">
      <p className="muted">
        A link that shows this email read-only to anyone who has it, without signing in, until it expires.
      </p>
      {share ? (
        <div className="share-link" role="status">
          <code>{share.url}</code>
          <CopyButton value={share.url} label="Copy the share link" />
          <span className="muted">
            Expires <Time value={share.expiresAt} />
          </span>
        </div>
      ) : null}
      <div className="row">
        <SelectField
          label="Valid for"
          value={duration}
          onChange={(event) => setDuration(event.target.value)}
          options={DURATIONS}
          error={fieldError(create.error, 'expires_in')}
        />
        <Button variant="primary" busy={create.isPending} onClick={() => create.mutate()}>
          {share ? 'Create another link' : 'Create a share link'}
        </Button>
        <Button onClick={() => setConfirmRevoke(true)}>Revoke all links</Button>
      </div>
      <ErrorMessage error={create.error} />
      <ConfirmDialog
        open={confirmRevoke}
        title="Revoke every share link of this email?"
        confirmLabel="Revoke the links"
        busy={revoke.isPending}
        error={revoke.error}
        onConfirm={() => revoke.mutate()}
        onClose={() => {
          setConfirmRevoke(false);
          revoke.reset();
        }}
      >
        <p>Anyone opening a link made so far sees “Link not valid” from now on. You can create a new one later.</p>
      </ConfirmDialog>
    </Card>
  );
}
