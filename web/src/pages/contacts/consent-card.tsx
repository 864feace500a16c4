import { useQuery } from '@tanstack/react-query';
import { api, type List } from '../../api/client';
import { Badge } from '../../ui/badge';
import { ErrorMessage } from '../../ui/error-message';
import { Card, Loading } from '../../ui/page';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import type { ConsentRecord, ContactTopic } from './contact-types';

/** What a record says, in words: the global opt-out or a topic choice. */
function Change({ record, topics }: { record: ConsentRecord; topics: ContactTopic[] }) {
  if (record.kind === 'unsubscribed')
    return record.value === 'unsubscribed' ? (
      <Badge tone="bad">unsubscribed from all</Badge>
    ) : (
      <Badge tone="good">resubscribed</Badge>
    );
  const topic = topics.find((t) => t.id === record.topic_id)?.name ?? 'a deleted topic';
  return (
    <>
      <Badge tone={record.value === 'opt_in' ? 'good' : 'warn'}>
        {record.value === 'opt_in' ? 'opted in' : 'opted out'}
      </Badge>{' '}
      {topic}
    </>
  );
}

/**
 * Every recorded change of consent, newest first, read-only: the proof of what the contact
 * chose, where and when (kept three years, beyond the contact's erasure).
 */
export function ConsentCard({ contactId }: { contactId: string }) {
  const records = useQuery({
    queryKey: ['/contacts', contactId, 'consent'],
    queryFn: ({ signal }) =>
      api.get<List<ConsentRecord>>(`/contacts/${contactId}/consent`, { query: { limit: 50 }, signal }),
  });
  // The topic names come from the same cache as the topics card.
  const topics = useQuery({
    queryKey: ['/contacts', contactId, 'topics'],
    queryFn: ({ signal }) =>
      api.get<List<ContactTopic>>(`/contacts/${contactId}/topics`, { query: { limit: 100 }, signal }),
  });
  return (
    <Card title="Consent history" id="contact-consent">
      <ErrorMessage error={records.error} />
      {records.isLoading ? (
        <Loading />
      ) : (
        <DataTable
          caption="Consent history"
          rows={records.data?.data ?? []}
          rowKey={(row) => row.id}
          empty={<p className="muted">No change of consent recorded yet.</p>}
          columns={[
            { header: 'When', className: 'nowrap', cell: (row) => <Time value={row.created_at} /> },
            { header: 'Change', cell: (row) => <Change record={row} topics={topics.data?.data ?? []} /> },
            { header: 'Source', cell: (row) => row.source },
            {
              header: 'From',
              cell: (row) =>
                row.ip || row.user_agent ? (
                  <span className="wrap-anywhere">{[row.ip, row.user_agent].filter(Boolean).join(' · ')}</span>
                ) : (
                  <span className="muted">—</span>
                ),
            },
          ]}
        />
      )}
      {records.data?.has_more ? <p className="muted">The 50 most recent changes are shown.</p> : null}
    </Card>
  );
}
