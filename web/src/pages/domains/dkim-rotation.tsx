import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { Button } from '../../ui/button';
import { ConfirmDialog } from '../../ui/dialog';
import { SelectField } from '../../ui/field';
import { useToast } from '../../ui/toast';
import { domainKey, type Domain } from './domain-types';

type Algorithm = 'rsa' | 'ed25519';

/**
 * POST /domains/{id}/dkim/rotate behind a confirmation that says what happens: a new key and its
 * record appear; the current key keeps signing until that record is found, so nothing breaks
 * while the record is being published.
 */
export function DkimRotation({ domain }: { domain: Domain }) {
  const client = useQueryClient();
  const toast = useToast();
  const [open, setOpen] = useState(false);
  const [algorithm, setAlgorithm] = useState<Algorithm>('rsa');
  const rotate = useMutation({
    mutationFn: () => api.post<Domain>(`/domains/${domain.id}/dkim/rotate`, { algorithm }),
    onSuccess: (answer) => {
      client.setQueryData(domainKey(domain.id), answer);
      setOpen(false);
      toast(domain.managed ? 'New DKIM key published' : 'New DKIM key created: publish its record');
    },
  });
  const close = () => {
    setOpen(false);
    rotate.reset();
  };
  return (
    <div className="stack">
      <p>Replace the key that signs this domain's mail, on a schedule or if you think its private half leaked.</p>
      <div>
        <Button onClick={() => setOpen(true)}>Rotate the DKIM key</Button>
      </div>
      <ConfirmDialog
        open={open}
        title="Rotate the DKIM key?"
        confirmLabel="Create the new key"
        busy={rotate.isPending}
        error={rotate.error}
        onConfirm={() => rotate.mutate()}
        onClose={close}
      >
        <p>
          A new key is created and its TXT record is added to the records of {domain.name}
          {domain.managed ? ', published in your zone by the appliance' : ': publish it at your DNS provider'}. The
          current key keeps signing until the new record is found; then the new key signs and the old one is retired.
          Remove the old record only a few days later, once mail signed with it has been delivered.
        </p>
        <SelectField
          label="Key type"
          value={algorithm}
          onChange={(event) => setAlgorithm(event.target.value as Algorithm)}
          options={[
            { value: 'rsa', label: 'RSA (every receiver checks it)' },
            { value: 'ed25519', label: 'Ed25519 (signs beside RSA; fewer receivers check it)' },
          ]}
        />
      </ConfirmDialog>
    </div>
  );
}
