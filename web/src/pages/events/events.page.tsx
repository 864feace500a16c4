import { useState } from 'react';
import { useCursorList } from '../../api/list';
import { useSearchParam } from '../../router';
import { Badge } from '../../ui/badge';
import { Button } from '../../ui/button';
import { ConfirmDialog, Dialog } from '../../ui/dialog';
import { ErrorMessage } from '../../ui/error-message';
import { TextField } from '../../ui/field';
import { Card, EmptyState, Loading, PageHeader } from '../../ui/page';
import { ListPager } from '../../ui/pager';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import { RowActions } from '../../ui/row-actions';
import { useListDelete } from '../../ui/use-list-delete';
import { EventForm } from './event-form';
import type { EventDefinition } from './event-types';
import { SendTestEvent } from './send-test-event';

function SchemaCell({ schema }: { schema: EventDefinition['schema'] }) {
  const entries = Object.entries(schema ?? {});
  if (entries.length === 0) return <span className="muted">none (any payload)</span>;
  return (
    <ul className="tag-list" aria-label="Payload keys">
      {entries.map(([key, type]) => (
        <li key={key}>
          <Badge>
            {key}: {type}
          </Badge>
        </li>
      ))}
    </ul>
  );
}

/**
 * Custom events: the definitions a product sends to start automations, each with its payload
 * schema (define, replace the schema, delete), and a form to send one for a contact.
 */
export default function EventsPage() {
  const [adding, setAdding] = useSearchParam('new');
  const [search, setSearch] = useSearchParam('search');
  const list = useCursorList<EventDefinition>('/events', { search: search.trim() || undefined });
  const [editing, setEditing] = useState<EventDefinition | null>(null);
  const { deleting, setDeleting, remove } = useListDelete<EventDefinition>('/events', (event) => `Event ${event.name}`);
  return (
    <>
      <PageHeader
        title="Events"
        description="Custom events your product sends for a contact (a sign-up, a purchase) to start automations, with the payload each carries."
        actions={
          adding ? null : (
            <Button variant="primary" onClick={() => setAdding('1')}>
              New event
            </Button>
          )
        }
      />
      {adding ? (
        <Card title="New event" id="new-event">
          <EventForm onDone={() => setAdding(null)} />
        </Card>
      ) : null}
      <Card title="Definitions" id="event-definitions">
        <form className="filters" role="search" aria-label="Find events" onSubmit={(e) => e.preventDefault()}>
          <TextField
            label="Search"
            type="search"
            value={search}
            placeholder="Part of the name"
            onChange={(event) => setSearch(event.target.value || null)}
          />
        </form>
        <ErrorMessage error={list.error} />
        {list.isLoading ? (
          <Loading />
        ) : list.isEmpty ? (
          search ? (
            <EmptyState title="No event matches">Change the search.</EmptyState>
          ) : (
            <EmptyState title="No events yet">Define one, then send it from your product, or test it here.</EmptyState>
          )
        ) : (
          <DataTable
            caption="Custom event definitions"
            rows={list.rows}
            rowKey={(row) => row.id}
            columns={[
              { header: 'Name', cell: (row) => <code>{row.name}</code> },
              { header: 'Schema', cell: (row) => <SchemaCell schema={row.schema} /> },
              {
                header: 'Changed',
                className: 'nowrap',
                cell: (row) => <Time value={row.updated_at ?? row.created_at} />,
              },
              {
                header: <span className="visually-hidden">Actions</span>,
                cell: (row) => (
                  <RowActions
                    name={row.name}
                    editLabel="Edit schema"
                    onEdit={() => setEditing(row)}
                    onDelete={() => setDeleting(row)}
                  />
                ),
              },
            ]}
          />
        )}
        <ListPager list={list} />
      </Card>
      {list.rows.length > 0 ? <SendTestEvent events={list.rows} /> : null}
      <Dialog open={editing !== null} title={`Schema of ${editing?.name ?? 'event'}`} onClose={() => setEditing(null)}>
        {editing ? <EventForm key={editing.id} event={editing} onDone={() => setEditing(null)} /> : null}
      </Dialog>
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete ${deleting?.name ?? 'event'}?`}
        confirmLabel="Delete event"
        busy={remove.isPending}
        error={remove.error}
        onConfirm={() => deleting && remove.mutate(deleting)}
        onClose={() => {
          setDeleting(null);
          remove.reset();
        }}
      >
        <p>
          Sending it is refused from then on and its name is free again. An automation whose trigger names it never
          starts on it any more.
        </p>
      </ConfirmDialog>
    </>
  );
}
