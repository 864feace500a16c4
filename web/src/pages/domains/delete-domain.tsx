import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { useRouter } from '../../router';
import { Button } from '../../ui/button';
import { Dialog } from '../../ui/dialog';
import { ErrorMessage } from '../../ui/error-message';
import { TextField } from '../../ui/field';
import { useToast } from '../../ui/toast';
import type { Domain } from './domain-types';

/**
 * DELETE /domains/{id}, confirmed by typing the domain's name: it removes the DKIM keys, so mail
 * can no longer be sent from it, and that cannot be undone.
 */
export function DeleteDomain({ domain }: { domain: Domain }) {
  const client = useQueryClient();
  const toast = useToast();
  const { navigate } = useRouter();
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const remove = useMutation({
    mutationFn: () => api.delete(`/domains/${domain.id}`),
    onSuccess: async () => {
      setOpen(false);
      toast(`${domain.name} deleted`);
      client.removeQueries({ queryKey: ['/domains', domain.id] });
      await client.invalidateQueries({ queryKey: ['/domains', 'list'] });
      navigate('/domains');
    },
  });
  const matches = typed.trim().toLowerCase() === domain.name;
  const close = () => {
    setOpen(false);
    setTyped('');
    remove.reset();
  };
  return (
    <div className="stack">
      <p>Mail can no longer be sent from {domain.name}, and its DKIM keys are destroyed.</p>
      <div>
        <Button variant="danger" onClick={() => setOpen(true)}>
          Delete domain
        </Button>
      </div>
      <Dialog
        open={open}
        title={`Delete ${domain.name}?`}
        onClose={close}
        footer={
          <>
            <Button onClick={close}>Cancel</Button>
            <Button variant="danger" busy={remove.isPending} disabled={!matches} onClick={() => remove.mutate()}>
              Delete domain
            </Button>
          </>
        }
      >
        <p>
          This cannot be undone: sending from {domain.name} is refused from then on, and its DKIM keys are gone.
          {domain.managed ? ' Its records are removed from your zone.' : ' Remove its records at your DNS provider.'}
        </p>
        <TextField
          label={`Type ${domain.name} to confirm`}
          value={typed}
          onChange={(event) => setTyped(event.target.value)}
          autoComplete="off"
          spellCheck={false}
        />
        <ErrorMessage error={remove.error} />
      </Dialog>
    </div>
  );
}
