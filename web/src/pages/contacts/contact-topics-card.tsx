import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type List } from '../../api/client';
import { Link } from '../../router';
import { ErrorMessage } from '../../ui/error-message';
import { SelectField } from '../../ui/field';
import { Card, EmptyState, Loading } from '../../ui/page';
import { useToast } from '../../ui/toast';
import type { ContactTopic, Subscription } from './contact-types';

const CHOICES = [
  { value: 'opt_in', label: 'Subscribed (opted in)' },
  { value: 'opt_out', label: 'Not subscribed (opted out)' },
];

/**
 * Every topic with the contact's effective subscription (their own choice, else the topic's
 * default). A change is recorded at once: the API writes a consent record for it.
 */
export function ContactTopicsCard({ contactId }: { contactId: string }) {
  const client = useQueryClient();
  const toast = useToast();
  const path = `/contacts/${contactId}/topics`;
  const topics = useQuery({
    queryKey: ['/contacts', contactId, 'topics'],
    queryFn: ({ signal }) => api.get<List<ContactTopic>>(path, { query: { limit: 100 }, signal }),
  });
  const choose = useMutation({
    mutationFn: (choice: { id: string; subscription: Subscription }) => api.patch(path, { topics: [choice] }),
    onSuccess: async (_answer, choice) => {
      const name = topics.data?.data.find((t) => t.id === choice.id)?.name ?? 'the topic';
      toast(choice.subscription === 'opt_in' ? `Subscribed to ${name}` : `Unsubscribed from ${name}`);
      // The topics and the consent history (a record per change) are read again; not the
      // contact itself, so unsaved edits in its details form stay.
      await Promise.all([
        client.invalidateQueries({ queryKey: ['/contacts', contactId, 'topics'] }),
        client.invalidateQueries({ queryKey: ['/contacts', contactId, 'consent'] }),
      ]);
    },
  });
  const rows = topics.data?.data ?? [];
  return (
    <Card title="Topics" id="contact-topics">
      <ErrorMessage error={topics.error ?? choose.error} />
      {topics.isLoading ? (
        <Loading />
      ) : rows.length === 0 ? (
        <EmptyState title="No topics yet">
          Topics let contacts choose what they receive: <Link to="/topics">define them</Link>.
        </EmptyState>
      ) : (
        <div className="stack">
          {rows.map((topic) => (
            <SelectField
              key={topic.id}
              label={topic.name}
              hint={topic.description ?? undefined}
              value={topic.subscription}
              disabled={choose.isPending}
              onChange={(event) => choose.mutate({ id: topic.id, subscription: event.target.value as Subscription })}
              options={CHOICES}
            />
          ))}
        </div>
      )}
    </Card>
  );
}
