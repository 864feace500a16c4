import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { TextField } from '../../ui/field';
import { useToast } from '../../ui/toast';
import { rowsOf, schemaOf, type EventDefinition } from './event-types';
import { SchemaEditor } from './schema-editor';

/**
 * Defines an event (name and schema) or replaces an existing definition's schema (`event`
 * given): the name is fixed at creation, and a PATCH replaces the whole schema, never merges.
 */
export function EventForm({ event, onDone }: { event?: EventDefinition; onDone: () => void }) {
  const client = useQueryClient();
  const toast = useToast();
  const [name, setName] = useState(event?.name ?? '');
  const [rows, setRows] = useState(() => rowsOf(event?.schema ?? null));
  const save = useMutation({
    mutationFn: () =>
      event
        ? api.patch(`/events/${event.id}`, { schema: schemaOf(rows) })
        : api.post('/events', { name: name.trim(), schema: schemaOf(rows) }),
    onSuccess: async () => {
      toast(event ? `Schema of ${event.name} saved` : `Event ${name.trim()} defined`);
      await client.invalidateQueries({ queryKey: ['/events'] });
      onDone();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <form className="stack" aria-label={event ? `Schema of ${event.name}` : 'New event'} onSubmit={submit}>
      {event ? null : (
        <TextField
          label="Name"
          required
          maxLength={100}
          value={name}
          placeholder="user.signed_up"
          onChange={(e) => setName(e.target.value)}
          error={fieldError(save.error, 'name')}
          hint="Lower-case letters, digits, dots, underscores and dashes, starting with a letter. Automations start on it; it cannot change later."
        />
      )}
      <SchemaEditor rows={rows} onChange={setRows} errorFor={(key) => fieldError(save.error, key)} />
      <ErrorMessage error={save.error} />
      <div className="row">
        <Button type="submit" variant="primary" busy={save.isPending}>
          {event ? 'Save schema' : 'Define event'}
        </Button>
        <Button onClick={onDone}>Cancel</Button>
      </div>
    </form>
  );
}
