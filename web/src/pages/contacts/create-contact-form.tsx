import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { useRouter } from '../../router';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { TextField } from '../../ui/field';
import { Card } from '../../ui/page';

/**
 * A new contact: the address and names; properties and topics are set on its page. An address
 * that already exists is updated by the API (never resubscribed), and its page opens all the same.
 */
export function CreateContactForm({ onCancel }: { onCancel: () => void }) {
  const { navigate } = useRouter();
  const client = useQueryClient();
  const [email, setEmail] = useState('');
  const [firstName, setFirstName] = useState('');
  const [lastName, setLastName] = useState('');
  const create = useMutation({
    mutationFn: () =>
      api.post<{ id: string }>('/contacts', {
        email: email.trim(),
        first_name: firstName.trim() || null,
        last_name: lastName.trim() || null,
      }),
    onSuccess: async (created) => {
      await client.invalidateQueries({ queryKey: ['/contacts'] });
      navigate(`/contacts/${created.id}`);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <Card title="New contact" id="new-contact">
      <form className="stack" aria-label="New contact" onSubmit={submit}>
        <TextField
          label="Email address"
          type="email"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          error={fieldError(create.error, 'email')}
          hint="An address that is already a contact is updated, and never resubscribed."
        />
        <div className="grid-2">
          <TextField
            label="First name"
            value={firstName}
            maxLength={200}
            onChange={(e) => setFirstName(e.target.value)}
          />
          <TextField label="Last name" value={lastName} maxLength={200} onChange={(e) => setLastName(e.target.value)} />
        </div>
        <ErrorMessage error={create.error} />
        <div className="row">
          <Button type="submit" variant="primary" busy={create.isPending}>
            Create contact
          </Button>
          <Button onClick={onCancel}>Cancel</Button>
        </div>
      </form>
    </Card>
  );
}
