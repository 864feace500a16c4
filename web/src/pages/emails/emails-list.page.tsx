import { useCursorList } from '../../api/list';
import { Link } from '../../router';
import { StatusBadge } from '../../ui/badge';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { Card, EmptyState, Loading, PageHeader } from '../../ui/page';
import { ListPager } from '../../ui/pager';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import { EmailFilters, emailListQuery, useEmailFilters } from './email-filters';
import type { EmailItem } from './email-types';
import { FirstEmail } from './first-email';

/** Every email the team sent, newest first, filtered by status, domain, dates and text. */
export default function EmailsListPage() {
  const filters = useEmailFilters();
  const query = emailListQuery(filters.values);
  const filtered = Object.values(query).some(Boolean);
  // New mail keeps arriving while the page is open: the first page refreshes itself.
  const list = useCursorList<EmailItem>('/emails', query, { refetchInterval: 10_000 });
  return (
    <>
      <PageHeader title="Emails" description="What your team sent through the API and SMTP, newest first." />
      <EmailFilters filters={filters} error={(field) => fieldError(list.error, field)} />
      <ErrorMessage error={list.error} />
      <Card>
        {list.isLoading ? (
          <Loading label="Loading emails…" />
        ) : (
          <DataTable
            caption="Sent emails"
            rows={list.rows}
            rowKey={(email) => email.id}
            empty={
              list.error ? null : filtered ? (
                <EmptyState title="No email matches these filters">
                  <p>Try a wider date range, another status, or clear the filters.</p>
                </EmptyState>
              ) : (
                <FirstEmail />
              )
            }
            columns={[
              {
                header: 'To',
                className: 'email-to',
                cell: (email) => <Link to={`/emails/${email.id}`}>{email.to.join(', ') || '—'}</Link>,
              },
              {
                header: 'Subject',
                className: 'email-subject',
                cell: (email) => email.subject || <span className="muted">(no subject)</span>,
              },
              { header: 'Status', className: 'nowrap', cell: (email) => <StatusBadge status={email.last_event} /> },
              {
                header: 'From',
                className: 'email-from',
                cell: (email) => email.from,
              },
              {
                header: 'Created',
                className: 'nowrap',
                cell: (email) => (
                  <>
                    <Time value={email.created_at} />
                    {email.scheduled_at && email.last_event === 'scheduled' ? (
                      <div className="muted">
                        for <Time value={email.scheduled_at} />
                      </div>
                    ) : null}
                  </>
                ),
              },
            ]}
          />
        )}
        <ListPager list={list} />
      </Card>
    </>
  );
}
