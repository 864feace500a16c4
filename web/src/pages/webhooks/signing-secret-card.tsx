import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { Button } from '../../ui/button';
import { CopyButton } from '../../ui/copy-button';
import { ConfirmDialog } from '../../ui/dialog';
import { ErrorMessage } from '../../ui/error-message';
import { Card } from '../../ui/page';
import { Time } from '../../ui/time';
import { useToast } from '../../ui/toast';
import type { SigningSecret } from './webhook-types';

/**
 * The signing secret stays off the screen until asked for (a shoulder or a screen share should
 * not catch it). Rotating gives a new one; the API keeps the old one signing beside it until
 * `previous_signing_secret_expires_at` (a day by default, the operator's webhooks.secretGraceSeconds),
 * so receivers can move to the new secret without rejecting a single event.
 */
export function SigningSecretCard({ id }: { id: string }) {
  const client = useQueryClient();
  const toast = useToast();
  const key = ['/webhooks', id, 'signing-secret'];
  const [shown, setShown] = useState(false);
  const [asking, setAsking] = useState(false);
  const secret = useQuery({
    queryKey: key,
    queryFn: () => api.get<SigningSecret>(`/webhooks/${id}/signing-secret`),
    enabled: shown,
    staleTime: Infinity,
  });
  const rotate = useMutation({
    mutationFn: () => api.post<SigningSecret>(`/webhooks/${id}/signing-secret/rotate`),
    onSuccess: (answer) => {
      client.setQueryData(key, answer);
      setShown(true);
      setAsking(false);
      toast('Signing secret rotated');
    },
  });
  const current = shown ? secret.data : undefined;
  return (
    <Card
      title="Signing secret"
      id="signing-secret"
      actions={
        <>
          {shown ? (
            <Button onClick={() => setShown(false)}>Hide</Button>
          ) : (
            <Button onClick={() => setShown(true)}>Reveal secret</Button>
          )}
          <Button onClick={() => setAsking(true)}>Rotate secret</Button>
        </>
      }
    >
      <p className="muted">
        Each delivery carries a <code>webhook-signature</code> header made with this secret (Standard Webhooks, as the{' '}
        <code>svix</code> and <code>standardwebhooks</code> libraries verify it). Keep it on your server only.
      </p>
      {shown && secret.isLoading ? <p className="muted">Fetching the secret…</p> : null}
      <ErrorMessage error={shown ? secret.error : null} />
      {current ? (
        <div className="secret-row">
          <code className="break-all secret-value">{current.signing_secret}</code>
          <CopyButton value={current.signing_secret} label="Copy the secret" />
        </div>
      ) : shown ? null : (
        <p className="secret-hidden">
          <span aria-hidden="true">••••••••••••••••••••••••</span>
          <span className="visually-hidden">The secret is hidden.</span>
        </p>
      )}
      {current ? <GraceNote expiresAt={current.previous_signing_secret_expires_at} rotated={rotate.isSuccess} /> : null}
      <ConfirmDialog
        open={asking}
        title="Rotate the signing secret?"
        confirmLabel="Rotate secret"
        busy={rotate.isPending}
        error={rotate.error}
        onConfirm={() => rotate.mutate()}
        onClose={() => {
          setAsking(false);
          rotate.reset();
        }}
      >
        <p>
          A new secret signs every delivery from now on. The current one keeps signing beside it for a grace period (a
          day, unless the operator of this appliance set another), so a receiver still checking the old secret keeps
          accepting events until you give it the new one. Once the grace period ends, only the new secret works.
        </p>
      </ConfirmDialog>
    </Card>
  );
}

/** What happens to the previous secret, from the date the API answered (null: no grace period left). */
function GraceNote({ expiresAt, rotated }: { expiresAt: string | null; rotated: boolean }) {
  if (expiresAt)
    return (
      <div className="alert alert-info" role="status">
        The previous secret keeps signing beside this one until <Time value={expiresAt} mode="absolute" /> (
        <Time value={expiresAt} />
        ): each delivery carries both signatures until then. Put the new secret in your receiver before that time.
      </div>
    );
  if (rotated)
    return (
      <div className="alert alert-warn" role="status">
        The previous secret stopped signing at once (this appliance has no grace period): update your receiver now.
      </div>
    );
  return null;
}
