import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { TextField } from '../../ui/field';
import { Card } from '../../ui/page';
import { Time } from '../../ui/time';
import { useToast } from '../../ui/toast';
import { eventsError } from './create-webhook-form';
import { EventTypePicker } from './event-type-picker';
import type { Webhook } from './webhook-types';

/** The endpoint's URL and event types, edited together and saved with one PATCH. */
export function EndpointSettingsCard({ endpoint }: { endpoint: Webhook }) {
  const client = useQueryClient();
  const toast = useToast();
  const [url, setUrl] = useState(endpoint.endpoint);
  const [events, setEvents] = useState(endpoint.events);
  const changed = url !== endpoint.endpoint || events.join() !== endpoint.events.join();
  const save = useMutation({
    mutationFn: () =>
      api.patch(`/webhooks/${endpoint.id}`, {
        // Only what changed: an unchanged URL is not checked (resolved) again.
        ...(url !== endpoint.endpoint ? { endpoint: url } : {}),
        events,
      }),
    onSuccess: async () => {
      toast('Endpoint saved');
      await client.invalidateQueries({ queryKey: ['/webhooks'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <Card title="Settings" id="webhook-settings">
      <p className="muted">
        Added <Time value={endpoint.created_at} mode="absolute" />.
      </p>
      <form onSubmit={submit} aria-label="Endpoint settings">
        <TextField
          label="Endpoint URL"
          type="url"
          value={url}
          onChange={(event) => setUrl(event.target.value)}
          required
          error={fieldError(save.error, 'endpoint')}
        />
        <h3>Events to send</h3>
        <EventTypePicker value={events} onChange={setEvents} error={eventsError(save.error)} />
        <ErrorMessage error={save.error} />
        <div className="form-actions">
          <Button type="submit" variant="primary" busy={save.isPending} disabled={!changed || events.length === 0}>
            Save changes
          </Button>
          {changed ? (
            <Button
              onClick={() => {
                setUrl(endpoint.endpoint);
                setEvents(endpoint.events);
                save.reset();
              }}
            >
              Undo changes
            </Button>
          ) : null}
          {events.length === 0 ? <span className="muted">Choose at least one event.</span> : null}
        </div>
      </form>
    </Card>
  );
}
