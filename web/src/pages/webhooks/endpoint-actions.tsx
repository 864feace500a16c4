import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { useRouter } from '../../router';
import { Button } from '../../ui/button';
import { ConfirmDialog } from '../../ui/dialog';
import { ErrorMessage } from '../../ui/error-message';
import { useToast } from '../../ui/toast';
import type { EndpointStatus, Webhook } from './webhook-types';

/** Enable, disable (asks first: waiting deliveries fail) and delete (asks first: it cannot be undone). */
export function EndpointActions({ endpoint }: { endpoint: Webhook }) {
  const client = useQueryClient();
  const toast = useToast();
  const { navigate } = useRouter();
  const [asking, setAsking] = useState<'disable' | 'delete' | null>(null);
  const setStatus = useMutation({
    mutationFn: (status: EndpointStatus) => api.patch(`/webhooks/${endpoint.id}`, { status }),
    onSuccess: async (_answer, status) => {
      setAsking(null);
      toast(status === 'enabled' ? 'Endpoint enabled' : 'Endpoint disabled');
      await client.invalidateQueries({ queryKey: ['/webhooks'] });
    },
  });
  const remove = useMutation({
    mutationFn: () => api.delete(`/webhooks/${endpoint.id}`),
    onSuccess: async () => {
      setAsking(null);
      toast('Endpoint deleted');
      client.removeQueries({ queryKey: ['/webhooks', endpoint.id] });
      await client.invalidateQueries({ queryKey: ['/webhooks'] });
      navigate('/webhooks');
    },
  });
  const close = () => {
    setAsking(null);
    setStatus.reset();
    remove.reset();
  };
  return (
    <>
      {endpoint.status === 'enabled' ? (
        <Button onClick={() => setAsking('disable')}>Disable</Button>
      ) : (
        <Button variant="primary" busy={setStatus.isPending} onClick={() => setStatus.mutate('enabled')}>
          Enable
        </Button>
      )}
      <Button variant="danger" onClick={() => setAsking('delete')}>
        Delete
      </Button>
      {asking === null ? <ErrorMessage error={setStatus.error} /> : null}
      <ConfirmDialog
        open={asking === 'disable'}
        title="Disable this endpoint?"
        confirmLabel="Disable"
        busy={setStatus.isPending}
        error={setStatus.error}
        onClose={close}
        onConfirm={() => setStatus.mutate('disabled')}
      >
        <p>
          No event is sent to <code className="break-all">{endpoint.endpoint}</code> while it is disabled, and the
          deliveries still waiting for an attempt are marked failed. You can enable it again and replay them.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={asking === 'delete'}
        title="Delete this endpoint?"
        confirmLabel="Delete endpoint"
        busy={remove.isPending}
        error={remove.error}
        onClose={close}
        onConfirm={() => remove.mutate()}
      >
        <p>
          <code className="break-all">{endpoint.endpoint}</code> stops receiving events, and its delivery log is deleted
          with it. This cannot be undone.
        </p>
      </ConfirmDialog>
    </>
  );
}
