import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { ConfirmDialog } from '../../ui/dialog';
import { useToast } from '../../ui/toast';
import type { ApiKey } from './api-key-types';

/** DELETE /api-keys/{id}: the key stops working at once; the row stays, listed as revoked. */
export function RevokeKeyDialog({ apiKey, onClose }: { apiKey: ApiKey | null; onClose: () => void }) {
  const client = useQueryClient();
  const toast = useToast();
  const revoke = useMutation({
    mutationFn: (id: string) => api.delete(`/api-keys/${id}`),
    onSuccess: async () => {
      toast(`Key ${apiKey?.name ?? ''} revoked`);
      close();
      await client.invalidateQueries({ queryKey: ['/api-keys', 'list'] });
    },
  });
  const close = () => {
    revoke.reset();
    onClose();
  };
  return (
    <ConfirmDialog
      open={apiKey !== null}
      title={`Revoke the key ${apiKey?.name ?? ''}?`}
      confirmLabel="Revoke key"
      busy={revoke.isPending}
      error={revoke.error}
      onConfirm={() => apiKey && revoke.mutate(apiKey.id)}
      onClose={close}
    >
      <p>
        Every application using the key <code>{apiKey?.key_prefix}…</code> is refused from now on. This cannot be
        undone: to use the API again, such an application needs a new key.
      </p>
    </ConfirmDialog>
  );
}
