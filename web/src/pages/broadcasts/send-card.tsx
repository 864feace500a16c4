import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { api } from '../../api/client';
import { Button } from '../../ui/button';
import { ConfirmDialog } from '../../ui/dialog';
import { ErrorMessage } from '../../ui/error-message';
import { Card } from '../../ui/page';
import { useToast } from '../../ui/toast';
import type { Broadcast } from './broadcast-types';

/**
 * Send a ready draft now or at a time (one minute to thirty days out, the API's rule), after a
 * confirmation; the send passes the same gate as the checklist, and its refusal is shown.
 */
export function SendCard({ broadcast, blockedReason }: { broadcast: Broadcast; blockedReason: string | null }) {
  const queryClient = useQueryClient();
  const toast = useToast();
  const [when, setWhen] = useState('');
  const [confirming, setConfirming] = useState<'now' | 'later' | null>(null);
  const whenId = useId();
  const send = useMutation({
    mutationFn: (scheduledAt: string | undefined) =>
      api.post(`/broadcasts/${broadcast.id}/send`, scheduledAt ? { scheduled_at: scheduledAt } : {}),
    onSuccess: async (_, scheduledAt) => {
      setConfirming(null);
      toast(scheduledAt ? 'Broadcast scheduled' : 'Broadcast queued for sending');
      await queryClient.invalidateQueries({ queryKey: ['/broadcasts'] });
    },
  });
  // datetime-local is the person's local time; the API takes ISO 8601 with an offset.
  const scheduledAt = when ? new Date(when).toISOString() : undefined;
  return (
    <Card title="Send" id="broadcast-send">
      <div className="stack">
        <div className="row">
          <Button variant="primary" disabledReason={blockedReason} onClick={() => setConfirming('now')}>
            Send now
          </Button>
        </div>
        <div className="row">
          <div className="field">
            <label htmlFor={whenId}>Schedule for (your local time)</label>
            <input id={whenId} type="datetime-local" value={when} onChange={(e) => setWhen(e.target.value)} />
          </div>
          <Button disabledReason={blockedReason} disabled={!when} onClick={() => setConfirming('later')}>
            Schedule
          </Button>
        </div>
        {confirming === null ? <ErrorMessage error={send.error} /> : null}
      </div>
      <ConfirmDialog
        open={confirming !== null}
        title={confirming === 'later' ? 'Schedule this broadcast?' : 'Send this broadcast now?'}
        confirmLabel={confirming === 'later' ? 'Schedule' : 'Send now'}
        busy={send.isPending}
        error={send.error}
        onClose={() => {
          setConfirming(null);
          send.reset();
        }}
        onConfirm={() => send.mutate(confirming === 'later' ? scheduledAt : undefined)}
      >
        <p>
          Every subscribed member of the segment gets it
          {confirming === 'later' && scheduledAt ? ` at ${new Date(scheduledAt).toLocaleString()}` : ' now'}. A sent
          broadcast cannot be recalled; a scheduled one can be canceled until it goes.
        </p>
      </ConfirmDialog>
    </Card>
  );
}

/** Cancel a scheduled, queued or sending broadcast (sending stops at the next page of recipients). */
export function CancelButton({ broadcast }: { broadcast: Broadcast }) {
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const cancel = useMutation({
    mutationFn: () => api.post(`/broadcasts/${broadcast.id}/cancel`),
    onSuccess: async () => {
      setConfirming(false);
      await queryClient.invalidateQueries({ queryKey: ['/broadcasts'] });
    },
  });
  return (
    <>
      <Button variant="danger" onClick={() => setConfirming(true)}>
        Cancel broadcast
      </Button>
      <ConfirmDialog
        open={confirming}
        title="Cancel this broadcast?"
        confirmLabel="Cancel broadcast"
        busy={cancel.isPending}
        error={cancel.error}
        onClose={() => setConfirming(false)}
        onConfirm={() => cancel.mutate()}
      >
        <p>
          {broadcast.status === 'sending'
            ? 'Sending stops at the next page of recipients; those already sent to keep their email.'
            : 'Nobody receives it.'}
        </p>
      </ConfirmDialog>
    </>
  );
}
