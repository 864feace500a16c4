import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { useRouter } from '../../router';
import { Button } from '../../ui/button';
import { ConfirmDialog } from '../../ui/dialog';
import { useToast } from '../../ui/toast';

/**
 * Deleting a contact is an erasure, not a soft delete: the dialog says what goes and what the
 * appliance keeps (docs/marketing.md, "Contacts"), since it cannot be undone.
 */
export function DeleteContact({ id, email }: { id: string; email: string }) {
  const { navigate } = useRouter();
  const client = useQueryClient();
  const toast = useToast();
  const [open, setOpen] = useState(false);
  const remove = useMutation({
    mutationFn: () => api.delete(`/contacts/${id}`),
    onSuccess: async () => {
      toast(`${email} erased`);
      client.removeQueries({ queryKey: ['/contacts', id] });
      await client.invalidateQueries({ queryKey: ['/contacts'] });
      navigate('/contacts');
    },
  });
  return (
    <>
      <Button variant="danger" onClick={() => setOpen(true)}>
        Delete contact
      </Button>
      <ConfirmDialog
        open={open}
        title={`Erase ${email}?`}
        confirmLabel="Erase contact"
        busy={remove.isPending}
        error={remove.error}
        onConfirm={() => remove.mutate()}
        onClose={() => {
          setOpen(false);
          remove.reset();
        }}
      >
        <p>This erases the contact’s personal data at once and cannot be undone.</p>
        <p>
          <strong>Removed:</strong> the address and names, every property value, topic choices and the segments the
          contact was added to by hand. From then on it is in no segment, so no later broadcast reaches it, and it no
          longer counts against the plan’s contact limit.
        </p>
        <p>
          <strong>Kept:</strong> the consent history, for three years, under a hash of the address instead of the
          address; the emails already sent to it, in Emails; a suppression of the address, if there is one. Creating the
          address again starts a new contact.
        </p>
      </ConfirmDialog>
    </>
  );
}
