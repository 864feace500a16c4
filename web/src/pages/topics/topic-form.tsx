import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { SelectField, TextArea, TextField } from '../../ui/field';
import { useToast } from '../../ui/toast';
import { DEFAULT_WORDS, VISIBILITY_OPTIONS, type Topic, type TopicSubscription, type Visibility } from './topic-types';

/**
 * Creates a topic, or edits one (`topic` given). The default subscription is chosen once, at
 * creation: the API refuses it on an update, so the edit form does not offer it.
 */
export function TopicForm({ topic, onDone }: { topic?: Topic; onDone: () => void }) {
  const client = useQueryClient();
  const toast = useToast();
  const [name, setName] = useState(topic?.name ?? '');
  const [description, setDescription] = useState(topic?.description ?? '');
  const [subscription, setSubscription] = useState<TopicSubscription>('opt_out');
  const [visibility, setVisibility] = useState<Visibility>(topic?.visibility ?? 'private');
  const save = useMutation({
    mutationFn: () => {
      const fields = { name: name.trim(), description: description.trim() || null, visibility };
      return topic
        ? api.patch(`/topics/${topic.id}`, fields)
        : api.post('/topics', { ...fields, default_subscription: subscription });
    },
    onSuccess: async () => {
      toast(topic ? `Topic ${name.trim()} saved` : `Topic ${name.trim()} created`);
      await client.invalidateQueries({ queryKey: ['/topics'] });
      onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const label = topic ? `Edit topic ${topic.name}` : 'New topic';
  return (
    <form className="stack" aria-label={label} onSubmit={submit}>
      <TextField
        label="Name"
        required
        maxLength={50}
        value={name}
        onChange={(e) => setName(e.target.value)}
        error={fieldError(save.error, 'name')}
        hint="Contacts see it on their preference page."
      />
      <TextArea
        label="Description"
        maxLength={200}
        rows={2}
        value={description}
        onChange={(e) => setDescription(e.target.value)}
        error={fieldError(save.error, 'description')}
      />
      {topic ? (
        <p className="muted">Contacts are {DEFAULT_WORDS[topic.default_subscription]} (fixed at creation).</p>
      ) : (
        <SelectField
          label="Default subscription"
          value={subscription}
          onChange={(e) => setSubscription(e.target.value as TopicSubscription)}
          error={fieldError(save.error, 'default_subscription')}
          hint="What a contact who never chose gets. It cannot change later."
          options={[
            { value: 'opt_out', label: 'Opt-in: not subscribed until they opt in' },
            { value: 'opt_in', label: 'Opt-out: subscribed unless they opt out' },
          ]}
        />
      )}
      <SelectField
        label="Visibility"
        value={visibility}
        onChange={(e) => setVisibility(e.target.value as Visibility)}
        error={fieldError(save.error, 'visibility')}
        options={VISIBILITY_OPTIONS}
      />
      <ErrorMessage error={save.error} />
      <div className="row">
        <Button type="submit" variant="primary" busy={save.isPending}>
          {topic ? 'Save topic' : 'Create topic'}
        </Button>
        <Button onClick={onDone}>Cancel</Button>
      </div>
    </form>
  );
}
