import { useQuery } from '@tanstack/react-query';
import { api, type List } from '../../api/client';
import { Link } from '../../router';
import { StatusBadge } from '../../ui/badge';
import { ErrorMessage } from '../../ui/error-message';
import { Card, Loading } from '../../ui/page';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';

type EmailItem = { id: string; to: string[]; subject: string; last_event: string; created_at: string };

/** Whether one of the `to` entries ("Ada <ada@x>" or "ada@x") is exactly this address. */
const sentTo = (email: EmailItem, address: string) =>
  email.to.some((to) => {
    const bare = /<([^>]+)>\s*$/.exec(to)?.[1] ?? to;
    return bare.trim().toLowerCase() === address.toLowerCase();
  });

/**
 * The emails sent to the contact's address (broadcasts, automations and transactional mail
 * alike), newest first. GET /emails has no recipient filter: its `q` finds the address in the
 * recipients or the subject, and the rows are then narrowed to those really sent to it.
 */
export function ContactEmailsCard({ address }: { address: string }) {
  const emails = useQuery({
    queryKey: ['/emails', 'to', address],
    queryFn: ({ signal }) => api.get<List<EmailItem>>('/emails', { query: { q: address, limit: 25 }, signal }),
  });
  const rows = (emails.data?.data ?? []).filter((email) => sentTo(email, address));
  return (
    <Card
      title="Emails sent"
      id="contact-emails"
      actions={<Link to={`/emails?q=${encodeURIComponent(address)}`}>All in Emails</Link>}
    >
      <ErrorMessage error={emails.error} />
      {emails.isLoading ? (
        <Loading />
      ) : (
        <DataTable
          caption="Emails sent to the contact"
          rows={rows}
          rowKey={(row) => row.id}
          empty={<p className="muted">No email has been sent to this address yet.</p>}
          columns={[
            {
              header: 'Subject',
              cell: (row) => (
                <Link to={`/emails/${row.id}`} className="break-all">
                  {row.subject || '(no subject)'}
                </Link>
              ),
            },
            { header: 'Status', cell: (row) => <StatusBadge status={row.last_event} /> },
            { header: 'Sent', className: 'nowrap', cell: (row) => <Time value={row.created_at} /> },
          ]}
        />
      )}
    </Card>
  );
}
