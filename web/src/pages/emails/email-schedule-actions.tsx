import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { Button } from '../../ui/button';
import { ConfirmDialog, Dialog } from '../../ui/dialog';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { TextField } from '../../ui/field';
import { useToast } from '../../ui/toast';
import type { EmailDetail } from './email-types';

/** A Date as the value of <input type="datetime-local"> (local time, minutes). */
function localInputValue(iso: string | null): string {
  const date = iso ? new Date(iso) : new Date(Date.now() + 3600_000);
  const shifted = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return shifted.toISOString().slice(0, 16);
}

/**
 * What can still change about a scheduled email: its time (PATCH /emails/{id}) or whether it
 * goes at all (POST /emails/{id}/cancel). Once dispatched the API answers 409, shown in words.
 */
export function EmailScheduleActions({ email }: { email: EmailDetail }) {
  const client = useQueryClient();
  const toast = useToast();
  const [cancelOpen, setCancelOpen] = useState(false);
  const [rescheduleOpen, setRescheduleOpen] = useState(false);
  const [when, setWhen] = useState(() => localInputValue(email.scheduled_at));
  const refresh = () => client.invalidateQueries({ queryKey: ['/emails'] });
  const cancel = useMutation({
    mutationFn: () => api.post(`/emails/${email.id}/cancel`, {}),
    onSuccess: async () => {
      setCancelOpen(false);
      toast('The email was canceled');
      await refresh();
    },
  });
  const reschedule = useMutation({
    mutationFn: () => api.patch(`/emails/${email.id}`, { scheduled_at: new Date(when).toISOString() }),
    onSuccess: async () => {
      setRescheduleOpen(false);
      toast('The email was rescheduled');
      await refresh();
    },
  });
  if (email.last_event !== 'scheduled') return null;
  return (
    <>
      <Button
        onClick={() => {
          setWhen(localInputValue(email.scheduled_at));
          reschedule.reset();
          setRescheduleOpen(true);
        }}
      >
        Reschedule
      </Button>
      <Button variant="danger" onClick={() => setCancelOpen(true)}>
        Cancel sending
      </Button>
      <ConfirmDialog
        open={cancelOpen}
        title="Cancel this scheduled email?"
        confirmLabel="Cancel the email"
        busy={cancel.isPending}
        error={cancel.error}
        onConfirm={() => cancel.mutate()}
        onClose={() => {
          setCancelOpen(false);
          cancel.reset();
        }}
      >
        <p>It will not be sent. A canceled email cannot be scheduled again: send a new one instead.</p>
      </ConfirmDialog>
      <Dialog
        open={rescheduleOpen}
        title="Reschedule"
        onClose={() => setRescheduleOpen(false)}
        footer={
          <>
            <Button onClick={() => setRescheduleOpen(false)}>Close</Button>
            <Button variant="primary" type="submit" form="reschedule-form" busy={reschedule.isPending} disabled={!when}>
              Reschedule
            </Button>
          </>
        }
      >
        <form
          id="reschedule-form"
          onSubmit={(event) => {
            event.preventDefault();
            reschedule.mutate();
          }}
        >
          <TextField
            label="Send at (your time)"
            type="datetime-local"
            value={when}
            onChange={(event) => setWhen(event.target.value)}
            required
            error={fieldError(reschedule.error, 'scheduled_at')}
          />
          <ErrorMessage error={reschedule.error} />
        </form>
      </Dialog>
    </>
  );
}
