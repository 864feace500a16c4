import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { TextField } from '../../ui/field';
import { useToast } from '../../ui/toast';

/**
 * Suppress one address by hand (origin manual). The API takes the address only, no reason; an
 * address already on the list keeps its entry (and its origin).
 */
export function AddSuppressionForm() {
  const client = useQueryClient();
  const toast = useToast();
  const [email, setEmail] = useState('');
  const add = useMutation({
    mutationFn: () => api.post<{ id: string }>('/suppressions', { email: email.trim() }),
    onSuccess: async () => {
      toast(`${email.trim()} is suppressed`);
      await client.invalidateQueries({ queryKey: ['/suppressions'] });
      setEmail('');
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="Suppress an address">
      <p className="muted">No email is sent to a suppressed address until you remove it from this list.</p>
      <div className="row">
        <TextField
          label="Address to suppress"
          type="email"
          name="email"
          placeholder="someone@example.com"
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          required
          error={fieldError(add.error, 'email')}
        />
        <div className="field">
          <Button type="submit" variant="primary" busy={add.isPending}>
            Suppress
          </Button>
        </div>
      </div>
      <ErrorMessage error={fieldError(add.error, 'email') ? null : add.error} />
    </form>
  );
}
