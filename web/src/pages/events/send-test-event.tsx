import { useMutation } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { api, ApiError } from '../../api/client';
import { Link } from '../../router';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { SelectField, TextArea, TextField } from '../../ui/field';
import { Card } from '../../ui/page';
import { samplePayload, type EventDefinition } from './event-types';

type Answer = { status: number; body: unknown };

/** The payload text as an object, or the reason it is not one. */
function parsePayload(text: string): { payload?: Record<string, unknown>; problem?: string } {
  if (text.trim() === '') return { payload: {} };
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value))
      return { payload: value as Record<string, unknown> };
    return { problem: 'The payload must be a JSON object, like {"plan": "pro"}.' };
  } catch (err) {
    return { problem: `The payload is not valid JSON: ${(err as Error).message}` };
  }
}

/**
 * POST /events/send for one contact, as a product would send it, with the appliance's answer
 * shown as it came (202 and its body, or the error and what it names). It is a real event: the
 * contact enters every enabled automation whose trigger names it.
 */
export function SendTestEvent({ events }: { events: EventDefinition[] }) {
  const [name, setName] = useState(events[0]?.name ?? '');
  const [email, setEmail] = useState('');
  const schemaText = JSON.stringify(events.find((e) => e.name === name)?.schema ?? null);
  const [payload, setPayload] = useState('');
  // Another event chosen (or its schema replaced): start from a sample payload matching its schema.
  useEffect(() => setPayload(JSON.stringify(samplePayload(JSON.parse(schemaText)), null, 2)), [schemaText]);
  const [problem, setProblem] = useState<string | null>(null);
  const send = useMutation({
    mutationFn: async (body: Record<string, unknown>): Promise<Answer> => ({
      status: 202,
      body: await api.post('/events/send', body),
    }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = parsePayload(payload);
    setProblem(parsed.problem ?? null);
    if (parsed.payload) send.mutate({ event: name, email: email.trim(), payload: parsed.payload });
  };
  const failed = send.error instanceof ApiError ? send.error : null;
  return (
    <Card title="Send a test event" id="send-test-event">
      <form className="stack" aria-label="Send a test event" onSubmit={submit}>
        <p className="muted">
          A real event: the contact enters every enabled <Link to="/automations">automation</Link> it starts.
        </p>
        <div className="grid-2">
          <SelectField
            label="Event"
            value={name}
            onChange={(e) => setName(e.target.value)}
            options={events.map((e) => ({ value: e.name, label: e.name }))}
            error={fieldError(send.error, 'event')}
          />
          <TextField
            label="Contact’s email address"
            type="email"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            error={fieldError(send.error, 'email')}
          />
        </div>
        <TextArea
          label="Payload (JSON)"
          className="mono"
          rows={6}
          value={payload}
          onChange={(e) => setPayload(e.target.value)}
          error={problem}
          hint="At most 16 KB. Declared keys must have their declared type."
        />
        <div className="row">
          <Button type="submit" variant="primary" busy={send.isPending} disabled={!name}>
            Send event
          </Button>
        </div>
      </form>
      <div aria-live="polite">
        {send.data ? (
          <div className="alert alert-good" role="status">
            <strong>Accepted ({send.data.status}).</strong> The event is stored; enrolled runs start on the next tick.
            <pre className="payload">{JSON.stringify(send.data.body, null, 2)}</pre>
          </div>
        ) : null}
        {failed ? (
          <ErrorMessage error={failed} title={`Refused (${failed.status} ${failed.errorName}):`} />
        ) : (
          <ErrorMessage error={send.error} />
        )}
      </div>
    </Card>
  );
}
