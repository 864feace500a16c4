import { useEffect, useState } from 'react';
import { Link, useSearchParam } from '../../router';
import { Badge } from '../../ui/badge';
import { Button } from '../../ui/button';
import { ErrorMessage } from '../../ui/error-message';
import { TextField } from '../../ui/field';
import { Card, EmptyState, Loading, PageHeader } from '../../ui/page';
import { Pager } from '../../ui/pager';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import { contactName } from './contact-types';
import { CreateContactForm } from './create-contact-form';
import { useContactList } from './use-contact-list';

/**
 * The team's contacts, newest first; a search by the start of the address lists matches in
 * address order (what the API can
 * answer from an index at any size: no substring search, no total count).
 */
export default function ContactsListPage() {
  const [adding, setAdding] = useSearchParam('new');
  const [q, setQ] = useSearchParam('q');
  // What is typed goes to the URL (and the API) after a short pause, not on every key.
  const [typed, setTyped] = useState(q);
  useEffect(() => {
    if (typed.trim() === q) return;
    const timer = window.setTimeout(() => setQ(typed.trim()), 300);
    return () => window.clearTimeout(timer);
  }, [typed, q, setQ]);
  const list = useContactList(q.trim());
  return (
    <>
      <PageHeader
        title="Contacts"
        description="The people your broadcasts and automations reach, with their properties, topics and consent."
        actions={
          adding ? null : (
            <Button variant="primary" onClick={() => setAdding('1')}>
              New contact
            </Button>
          )
        }
      />
      {adding ? <CreateContactForm onCancel={() => setAdding(null)} /> : null}
      <Card>
        <form className="filters" role="search" aria-label="Find contacts" onSubmit={(e) => e.preventDefault()}>
          <TextField
            label="Address starts with"
            type="search"
            value={typed}
            placeholder="ada@"
            onChange={(event) => setTyped(event.target.value)}
          />
        </form>
        <ErrorMessage error={list.error} />
        {list.isLoading ? (
          <Loading />
        ) : list.isEmpty ? (
          q ? (
            <EmptyState title="No contact matches">No address starts with “{q}”.</EmptyState>
          ) : (
            <EmptyState title="No contacts yet">
              Create one here, import a CSV from <Link to="/imports">Imports</Link>, or add them with the API.
            </EmptyState>
          )
        ) : list.rows.length === 0 ? (
          <EmptyState title="No older contacts">This was the last page.</EmptyState>
        ) : (
          <DataTable
            caption="Contacts"
            rows={list.rows}
            rowKey={(row) => row.id}
            columns={[
              {
                header: 'Email',
                cell: (row) => (
                  <Link to={`/contacts/${row.id}`} className="break-all">
                    {row.email}
                  </Link>
                ),
              },
              { header: 'Name', cell: (row) => contactName(row) || <span className="muted">—</span> },
              {
                header: 'Subscribed',
                cell: (row) =>
                  row.unsubscribed ? <Badge tone="bad">unsubscribed</Badge> : <Badge tone="good">subscribed</Badge>,
              },
              { header: 'Created', className: 'nowrap', cell: (row) => <Time value={row.created_at} /> },
            ]}
          />
        )}
        <Pager
          hasPrevious={list.hasPrevious}
          hasNext={list.hasNext}
          onPrevious={list.previous}
          onNext={list.next}
          busy={list.isFetching}
        />
      </Card>
    </>
  );
}
