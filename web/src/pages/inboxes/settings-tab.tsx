import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { Checkbox, SelectField, TextArea, TextField } from '../../ui/field';
import { Card, Loading } from '../../ui/page';
import { useToast } from '../../ui/toast';
import { useRefreshInbox } from './inbox-cache';
import {
  ACTION_WORDS,
  AGENT_ACTIONS,
  AGENT_TONES,
  TONE_WORDS,
  inboxPath,
  type Agent,
  type InboxDetail,
} from './inbox-types';

/** The inbox's name and sender name, and what its agent may do with new threads. */
export function SettingsTab({ inbox }: { inbox: InboxDetail }) {
  return (
    <div className="grid-2 inbox-settings">
      <InboxDetailsCard inbox={inbox} />
      <AgentCard inboxId={inbox.id} />
    </div>
  );
}

function InboxDetailsCard({ inbox }: { inbox: InboxDetail }) {
  const toast = useToast();
  const refresh = useRefreshInbox(inbox.id);
  const [form, setForm] = useState({ name: inbox.name, from_name: inbox.from_name ?? '' });
  const save = useMutation({
    mutationFn: () => api.patch(inboxPath(inbox.id), { name: form.name.trim(), from_name: form.from_name.trim() }),
    onSuccess: async () => {
      toast('Inbox saved');
      await refresh();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <Card title="Inbox" id="inbox-details">
      <form className="stack" onSubmit={submit} aria-label="Inbox details">
        <TextField label="Address" value={inbox.email_address} readOnly hint="An inbox’s address cannot change." />
        <TextField
          label="Name"
          value={form.name}
          onChange={(event) => setForm((value) => ({ ...value, name: event.target.value }))}
          error={fieldError(save.error, 'name')}
        />
        <TextField
          label="Sender name"
          value={form.from_name}
          hint="Shown to customers as the sender of replies."
          onChange={(event) => setForm((value) => ({ ...value, from_name: event.target.value }))}
          error={fieldError(save.error, 'from_name')}
        />
        <ErrorMessage error={save.error} />
        <div className="form-actions">
          <Button type="submit" variant="primary" busy={save.isPending}>
            Save inbox
          </Button>
        </div>
      </form>
    </Card>
  );
}

function AgentCard({ inboxId }: { inboxId: string }) {
  const path = `${inboxPath(inboxId)}/agent`;
  const agent = useQuery({ queryKey: [path], queryFn: ({ signal }) => api.get<Agent>(path, { signal }) });
  return (
    <Card title="Agent" id="agent">
      <p className="muted">
        The agent reads each new thread once and takes only the actions ticked here, recording its reason on the thread.
        It never sends mail itself: replies it writes wait as drafts. It needs AI assist on for the team.
      </p>
      <ErrorMessage error={agent.error} />
      {agent.isLoading ? <Loading label="Loading the agent’s settings…" /> : null}
      {agent.data ? <AgentForm path={path} agent={agent.data} inboxId={inboxId} /> : null}
    </Card>
  );
}

function AgentForm({ path, agent, inboxId }: { path: string; agent: Agent; inboxId: string }) {
  const toast = useToast();
  const refresh = useRefreshInbox(inboxId);
  const [instructions, setInstructions] = useState(agent.instructions ?? '');
  const [tone, setTone] = useState<string>(agent.tone ?? '');
  const [actions, setActions] = useState(new Set(agent.actions));
  const save = useMutation({
    mutationFn: () =>
      api.patch(path, {
        instructions: instructions.trim() === '' ? null : instructions,
        tone: tone === '' ? null : tone,
        actions: AGENT_ACTIONS.filter((action) => actions.has(action)),
      }),
    onSuccess: async () => {
      toast(actions.size ? 'Agent settings saved' : 'Agent settings saved: the agent is off');
      await refresh();
    },
  });
  const toggle = (action: string, on: boolean) =>
    setActions((value) => {
      const next = new Set(value);
      if (on) next.add(action);
      else next.delete(action);
      return next;
    });
  return (
    <form
      className="stack"
      aria-label="Agent settings"
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate();
      }}
    >
      <TextArea
        label="Instructions"
        rows={6}
        value={instructions}
        placeholder="Label billing questions as Billing and assign them to ana@example.com."
        onChange={(event) => setInstructions(event.target.value)}
        error={fieldError(save.error, 'instructions')}
      />
      <SelectField
        label="Tone of drafted replies"
        value={tone}
        onChange={(event) => setTone(event.target.value)}
        error={fieldError(save.error, 'tone')}
        options={[
          { value: '', label: 'Default' },
          ...AGENT_TONES.map((value) => ({ value, label: TONE_WORDS[value] ?? value })),
        ]}
      />
      <fieldset className="settings-group">
        <legend>Actions the agent may take</legend>
        {AGENT_ACTIONS.map((action) => (
          <Checkbox
            key={action}
            label={ACTION_WORDS[action] ?? action}
            checked={actions.has(action)}
            onChange={(event) => toggle(action, event.target.checked)}
          />
        ))}
        <span className="field-hint">None ticked: the agent is off for this inbox.</span>
      </fieldset>
      <ErrorMessage error={save.error} />
      <div className="form-actions">
        <Button type="submit" variant="primary" busy={save.isPending}>
          Save agent settings
        </Button>
      </div>
    </form>
  );
}
