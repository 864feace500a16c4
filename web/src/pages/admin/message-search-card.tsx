import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, type List } from '../../api/client';
import { useSearchParam } from '../../router';
import { StatusBadge } from '../../ui/badge';
import { Button } from '../../ui/button';
import { ErrorMessage } from '../../ui/error-message';
import { TextField } from '../../ui/field';
import { Card, EmptyState, Loading } from '../../ui/page';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import type { QueuedDelivery } from './admin-types';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An email id finds that email's deliveries; anything else is taken as a recipient address. */
const searchQuery = (term: string) => (UUID.test(term) ? { email_id: term } : { recipient: term });

/** Finds messages in the queue by email id or recipient; choosing one opens its transcripts. */
export function MessageSearchCard() {
  const [term, setTerm] = useSearchParam('find');
  const [, setEmail] = useSearchParam('email');
  const [draft, setDraft] = useState(term);
  const found = useQuery({
    queryKey: ['admin', 'queue', 'messages', term],
    queryFn: () =>
      api.get<List<QueuedDelivery>>('/admin/queue/messages', { query: { ...searchQuery(term), limit: 50 } }),
    enabled: term !== '',
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    setTerm(draft.trim());
  };
  return (
    <Card title="Find a message" id="queue-search">
      <form role="search" aria-label="Find a message in the queue" onSubmit={onSubmit} className="admin-inline-form">
        <TextField
          label="Email ID or recipient address"
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          placeholder="someone@example.com"
        />
        <Button type="submit">Find</Button>
      </form>
      <ErrorMessage error={found.error} />
      {found.isFetching && !found.data ? <Loading /> : null}
      {found.data ? (
        <DataTable
          caption="Messages found"
          rowKey={(row) => row.id}
          rows={found.data.data}
          empty={<EmptyState title="No message in the queue matches" />}
          columns={[
            { header: 'Recipient', cell: (row) => row.recipient },
            { header: 'State', cell: (row) => <StatusBadge status={row.state} /> },
            { header: 'Lane', cell: (row) => row.lane },
            { header: 'Attempts', cell: (row) => row.attempts, className: 'num' },
            { header: 'Next attempt', cell: (row) => <Time value={row.next_attempt_at} /> },
            { header: 'Last reply', cell: (row) => row.last_reply ?? <span className="muted">—</span> },
            {
              header: 'Email',
              cell: (row) => (
                <Button
                  variant="ghost"
                  className="btn-small"
                  onClick={() => setEmail(row.email_id)}
                  aria-label={`Attempts and transcripts of the email to ${row.recipient}`}
                >
                  Transcripts
                </Button>
              ),
            },
          ]}
        />
      ) : null}
    </Card>
  );
}
