import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { useCursorList } from '../../api/list';
import { Link, useRouter } from '../../router';
import { Badge } from '../../ui/badge';
import { Button } from '../../ui/button';
import { ConfirmDialog } from '../../ui/dialog';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { TextField } from '../../ui/field';
import { Card, EmptyState, Loading, PageHeader } from '../../ui/page';
import { ListPager } from '../../ui/pager';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import { useToast } from '../../ui/toast';
import { useListDelete } from '../../ui/use-list-delete';
import { inboxTitle, type InboxItem } from './inbox-types';

/** Shared inboxes: an address on a receiving domain whose mail the team reads and answers together. */
export default function InboxesListPage() {
  const list = useCursorList<InboxItem>('/inboxes', {}, { refetchInterval: 30_000 });
  const { deleting, setDeleting, remove } = useListDelete<InboxItem>('/inboxes', (inbox) => inboxTitle(inbox));
  return (
    <>
      <PageHeader
        title="Inboxes"
        description="Shared inboxes: mail to an address on one of your receiving domains, read and answered by the team."
      />
      <div className="stack">
        <CreateInboxCard />
        <ErrorMessage error={list.error} />
        <Card title="Your inboxes" id="inboxes">
          {list.isLoading ? (
            <Loading label="Loading inboxes…" />
          ) : (
            <DataTable
              caption="Inboxes"
              rows={list.rows}
              rowKey={(inbox) => inbox.id}
              empty={
                list.error ? null : (
                  <EmptyState title="No inboxes yet">
                    <p>
                      Create one above at an address on a domain with receiving turned on (see{' '}
                      <Link to="/domains">Domains</Link>).
                    </p>
                  </EmptyState>
                )
              }
              columns={[
                {
                  header: 'Inbox',
                  cell: (inbox) => <Link to={`/inboxes/${inbox.id}`}>{inboxTitle(inbox)}</Link>,
                },
                { header: 'Address', className: 'wrap-anywhere', cell: (inbox) => inbox.email_address },
                {
                  header: 'Sender name',
                  cell: (inbox) => inbox.from_name ?? <span className="muted">—</span>,
                },
                {
                  header: 'Unread',
                  className: 'num',
                  cell: (inbox) => (inbox.unread ? <Badge tone="info">{inbox.unread}</Badge> : '0'),
                },
                { header: 'Last received', className: 'nowrap', cell: (inbox) => <Time value={inbox.last_received} /> },
                {
                  header: <span className="visually-hidden">Actions</span>,
                  cell: (inbox) => (
                    <Button
                      className="btn-small"
                      variant="danger"
                      onClick={() => setDeleting(inbox)}
                      aria-label={`Delete ${inbox.email_address}`}
                    >
                      Delete
                    </Button>
                  ),
                },
              ]}
            />
          )}
          <ListPager list={list} />
        </Card>
      </div>
      <ConfirmDialog
        open={deleting !== null}
        title="Delete this inbox?"
        confirmLabel="Delete inbox"
        busy={remove.isPending}
        error={remove.error}
        onConfirm={() => deleting && remove.mutate(deleting)}
        onClose={() => {
          setDeleting(null);
          remove.reset();
        }}
      >
        <p>
          <strong>{deleting?.email_address}</strong> stops collecting mail. Its received and sent mail stays under
          Received and Emails; its threads, drafts and labels go.
        </p>
      </ConfirmDialog>
    </>
  );
}

function CreateInboxCard() {
  const client = useQueryClient();
  const toast = useToast();
  const { navigate } = useRouter();
  const [form, setForm] = useState({ email_address: '', name: '', from_name: '' });
  const create = useMutation({
    mutationFn: () =>
      api.post<{ id: string }>('/inboxes', {
        email_address: form.email_address.trim(),
        ...(form.name.trim() ? { name: form.name.trim() } : {}),
        ...(form.from_name.trim() ? { from_name: form.from_name.trim() } : {}),
      }),
    onSuccess: async (created) => {
      toast(`Inbox ${form.email_address.trim()} created`);
      setForm({ email_address: '', name: '', from_name: '' });
      await client.invalidateQueries({ queryKey: ['/inboxes'] });
      navigate(`/inboxes/${created.id}`);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const set = (key: keyof typeof form) => (event: { target: { value: string } }) =>
    setForm((value) => ({ ...value, [key]: event.target.value }));
  return (
    <Card title="Create an inbox" id="create-inbox">
      <form className="row" onSubmit={submit} aria-label="Create an inbox">
        <TextField
          label="Address"
          type="email"
          required
          placeholder="support@example.com"
          value={form.email_address}
          onChange={set('email_address')}
          error={fieldError(create.error, 'email_address')}
        />
        <TextField
          label="Name"
          placeholder="Support"
          value={form.name}
          onChange={set('name')}
          error={fieldError(create.error, 'name')}
        />
        <TextField
          label="Sender name"
          placeholder="Acme Support"
          value={form.from_name}
          onChange={set('from_name')}
          error={fieldError(create.error, 'from_name')}
        />
        <Button type="submit" variant="primary" busy={create.isPending}>
          Create inbox
        </Button>
      </form>
      <ErrorMessage error={create.error} />
    </Card>
  );
}
