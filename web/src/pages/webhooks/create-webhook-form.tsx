import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, ApiError } from '../../api/client';
import { useRouter } from '../../router';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { TextField } from '../../ui/field';
import { Card } from '../../ui/page';
import { useToast } from '../../ui/toast';
import { EventTypePicker } from './event-type-picker';

/** The message of the `events` field or of one of its entries (`events.3`), if the API named one. */
export function eventsError(error: unknown): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const found = error.fieldErrors.filter((field) => field.path === 'events' || field.path.startsWith('events.'));
  return found.length ? found.map((field) => field.message).join('; ') : undefined;
}

/** A new endpoint: its URL and the events it hears; then its own page (secret, deliveries). */
export function CreateWebhookForm({ onCancel }: { onCancel?: () => void }) {
  const client = useQueryClient();
  const toast = useToast();
  const { navigate } = useRouter();
  const [endpoint, setEndpoint] = useState('');
  const [events, setEvents] = useState<string[]>(['email.delivered', 'email.bounced', 'email.complained']);
  const create = useMutation({
    mutationFn: () => api.post<{ id: string; signing_secret: string }>('/webhooks', { endpoint, events }),
    onSuccess: async (created) => {
      await client.invalidateQueries({ queryKey: ['/webhooks'] });
      toast('Endpoint added');
      navigate(`/webhooks/${created.id}`);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <Card title="Add an endpoint" id="new-webhook">
      <form onSubmit={submit} aria-label="Add a webhook endpoint">
        <TextField
          label="Endpoint URL"
          type="url"
          name="endpoint"
          placeholder="https://example.com/webhooks/mailroom"
          hint="The appliance POSTs each event here, signed. It must be https and reachable from the appliance."
          value={endpoint}
          onChange={(event) => setEndpoint(event.target.value)}
          required
          error={fieldError(create.error, 'endpoint')}
        />
        <h3>Events to send</h3>
        <EventTypePicker value={events} onChange={setEvents} error={eventsError(create.error)} />
        <ErrorMessage error={create.error} />
        <div className="form-actions">
          <Button type="submit" variant="primary" busy={create.isPending} disabled={events.length === 0}>
            Add endpoint
          </Button>
          {onCancel ? <Button onClick={onCancel}>Cancel</Button> : null}
          {events.length === 0 ? <span className="muted">Choose at least one event.</span> : null}
        </div>
      </form>
    </Card>
  );
}
