import { useCursorList } from '../../api/list';
import { ErrorMessage } from '../../ui/error-message';
import { Card, Loading } from '../../ui/page';
import { ListPager } from '../../ui/pager';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';

type ContactEvent = { id: string; event: string; payload: Record<string, unknown>; created_at: string };

/**
 * The events recorded for the contact, newest first (GET /contacts/{contact}/events): custom
 * events sent for it and the platform events (svc:...) automations were listening for.
 */
export function ContactEventsCard({ contactId }: { contactId: string }) {
  const list = useCursorList<ContactEvent>(`/contacts/${contactId}/events`, {}, { limit: 10 });
  return (
    <Card title="Events" id="contact-events">
      <ErrorMessage error={list.error} />
      {list.isLoading ? (
        <Loading />
      ) : (
        <DataTable
          caption="Events of the contact"
          rows={list.rows}
          rowKey={(row) => row.id}
          empty={<p className="muted">No event has been sent for this contact.</p>}
          columns={[
            { header: 'Event', cell: (row) => <code>{row.event}</code> },
            {
              header: 'Payload',
              cell: (row) =>
                Object.keys(row.payload).length === 0 ? (
                  <span className="muted">empty</span>
                ) : (
                  <code className="wrap-anywhere">{JSON.stringify(row.payload)}</code>
                ),
            },
            { header: 'When', className: 'nowrap', cell: (row) => <Time value={row.created_at} /> },
          ]}
        />
      )}
      <ListPager list={list} />
    </Card>
  );
}
