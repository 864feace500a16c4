import { useEffect, useState, type FormEvent } from 'react';
import { useCursorList } from '../../api/list';
import { Link, useSearchParam } from '../../router';
import { Badge } from '../../ui/badge';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { TextField } from '../../ui/field';
import { Card, EmptyState, Loading, PageHeader } from '../../ui/page';
import { ListPager } from '../../ui/pager';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import type { ReceivedItem } from './received-types';

/** Mail that arrived at the team's receiving domains, newest first, searchable, by date. */
export default function ReceivedListPage() {
  const [q, setQ] = useSearchParam('q');
  const [from, setFrom] = useSearchParam('from');
  const [to, setTo] = useSearchParam('to');
  const [search, setSearch] = useState(q);
  useEffect(() => setSearch(q), [q]);
  // start_date and end_date take plain days (inclusive) as well as instants.
  const filters = { search: q || undefined, start_date: from || undefined, end_date: to || undefined };
  const filtered = Boolean(q || from || to);
  const list = useCursorList<ReceivedItem>('/emails/receiving', filters, { refetchInterval: 15_000 });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setQ(search.trim());
  };
  return (
    <>
      <PageHeader title="Received" description="Mail that arrived at your receiving domains, newest first." />
      <form className="filters" role="search" aria-label="Filter received mail" onSubmit={submit}>
        <TextField
          label="Subject, sender or recipient"
          type="search"
          value={search}
          onChange={(event) => setSearch(event.target.value)}
          error={fieldError(list.error, 'search')}
        />
        <Button type="submit">Search</Button>
        <TextField
          label="Received from"
          type="date"
          value={from}
          max={to || undefined}
          onChange={(event) => setFrom(event.target.value)}
          error={fieldError(list.error, 'start_date')}
        />
        <TextField
          label="Received until"
          type="date"
          value={to}
          min={from || undefined}
          onChange={(event) => setTo(event.target.value)}
          error={fieldError(list.error, 'end_date')}
        />
        {filtered ? (
          <Button
            variant="ghost"
            onClick={() => {
              setQ(null);
              setFrom(null);
              setTo(null);
            }}
          >
            Clear filters
          </Button>
        ) : null}
      </form>
      <ErrorMessage error={list.error} />
      <Card>
        {list.isLoading ? (
          <Loading label="Loading received mail…" />
        ) : (
          <DataTable
            caption="Received emails"
            rows={list.rows}
            rowKey={(email) => email.id}
            empty={
              list.error ? null : filtered ? (
                <EmptyState title="No received email matches these filters" />
              ) : (
                <EmptyState title="Nothing received yet">
                  <p>
                    Turn on receiving for a domain on its <Link to="/domains">domain page</Link> and publish its MX
                    record: mail sent to any address at it shows up here, and an <code>email.received</code>{' '}
                    <Link to="/webhooks">webhook</Link> tells your application.
                  </p>
                </EmptyState>
              )
            }
            columns={[
              {
                header: 'From',
                className: 'wrap-anywhere',
                cell: (email) => <Link to={`/received/${email.id}`}>{email.from}</Link>,
              },
              { header: 'To', className: 'wrap-anywhere', cell: (email) => email.to.join(', ') },
              {
                header: 'Subject',
                cell: (email) => (
                  <>
                    {email.subject || <span className="muted">(no subject)</span>}
                    {email.dropped_reason ? (
                      <>
                        {' '}
                        <Badge tone="warn">not stored: {email.dropped_reason.replace(/_/g, ' ')}</Badge>
                      </>
                    ) : null}
                  </>
                ),
              },
              {
                header: 'Attachments',
                className: 'num',
                cell: (email) => (email.attachments.length ? email.attachments.length : '—'),
              },
              { header: 'Received', className: 'nowrap', cell: (email) => <Time value={email.created_at} /> },
            ]}
          />
        )}
        <ListPager list={list} />
      </Card>
    </>
  );
}
