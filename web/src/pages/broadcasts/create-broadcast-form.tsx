import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { useRouter } from '../../router';
import { Button } from '../../ui/button';
import { ErrorMessage } from '../../ui/error-message';
import { TextField } from '../../ui/field';
import { Card } from '../../ui/page';
import { errorFor } from './field-errors';

/** A new draft: the API needs a from address and a subject; the rest is written in the editor. */
export function CreateBroadcastForm({ onCancel }: { onCancel: () => void }) {
  const { navigate } = useRouter();
  const [name, setName] = useState('');
  const [from, setFrom] = useState('');
  const [subject, setSubject] = useState('');
  const create = useMutation({
    mutationFn: () =>
      api.post<{ id: string }>('/broadcasts', { name: name.trim() || null, from: from.trim(), subject }),
    onSuccess: (created) => navigate(`/broadcasts/${created.id}`),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <Card title="New broadcast" id="new-broadcast">
      <form className="stack" aria-label="New broadcast" onSubmit={submit}>
        <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} hint="Only you see it." />
        <TextField
          label="From"
          required
          value={from}
          placeholder="Acme <news@acme.example>"
          onChange={(e) => setFrom(e.target.value)}
          error={errorFor(create.error, 'from')}
          hint="An address on one of your verified domains."
        />
        <TextField
          label="Subject"
          required
          value={subject}
          onChange={(e) => setSubject(e.target.value)}
          error={errorFor(create.error, 'subject')}
        />
        <ErrorMessage error={create.error} />
        <div className="row">
          <Button type="submit" variant="primary" busy={create.isPending}>
            Create draft
          </Button>
          <Button onClick={onCancel}>Cancel</Button>
        </div>
      </form>
    </Card>
  );
}
