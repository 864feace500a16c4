import { useState } from 'react';
import { useCursorList } from '../../api/list';
import { useSearchParam } from '../../router';
import { Badge } from '../../ui/badge';
import { Button } from '../../ui/button';
import { ConfirmDialog, Dialog } from '../../ui/dialog';
import { ErrorMessage } from '../../ui/error-message';
import { Card, EmptyState, Loading, PageHeader } from '../../ui/page';
import { ListPager } from '../../ui/pager';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import { RowActions } from '../../ui/row-actions';
import { useListDelete } from '../../ui/use-list-delete';
import { TopicForm } from './topic-form';
import { DEFAULT_WORDS, type Topic } from './topic-types';

/**
 * Topics: the kinds of mail a contact can choose to receive (a broadcast names one, and only
 * contacts subscribed to it get it). Define, edit and delete; a contact's own choices are on
 * their page.
 */
export default function TopicsPage() {
  const [adding, setAdding] = useSearchParam('new');
  const list = useCursorList<Topic>('/topics');
  const [editing, setEditing] = useState<Topic | null>(null);
  const { deleting, setDeleting, remove } = useListDelete<Topic>('/topics', (topic) => `Topic ${topic.name}`);
  return (
    <>
      <PageHeader
        title="Topics"
        description="The kinds of mail contacts choose to receive, each with its default and its place on the preference page."
        actions={
          adding ? null : (
            <Button variant="primary" onClick={() => setAdding('1')}>
              New topic
            </Button>
          )
        }
      />
      {adding ? (
        <Card title="New topic" id="new-topic">
          <TopicForm onDone={() => setAdding(null)} />
        </Card>
      ) : null}
      <Card>
        <ErrorMessage error={list.error} />
        {list.isLoading ? (
          <Loading />
        ) : list.isEmpty ? (
          <EmptyState title="No topics yet">
            Without topics, a broadcast goes to every subscribed member of its segment.
          </EmptyState>
        ) : (
          <DataTable
            caption="Topics"
            rows={list.rows}
            rowKey={(row) => row.id}
            columns={[
              {
                header: 'Name',
                cell: (row) => (
                  <>
                    <strong>{row.name}</strong>
                    {row.description ? <div className="muted">{row.description}</div> : null}
                  </>
                ),
              },
              { header: 'By default', cell: (row) => DEFAULT_WORDS[row.default_subscription] },
              {
                header: 'Visibility',
                cell: (row) => <Badge tone={row.visibility === 'public' ? 'info' : 'neutral'}>{row.visibility}</Badge>,
              },
              { header: 'Created', className: 'nowrap', cell: (row) => <Time value={row.created_at} /> },
              {
                header: <span className="visually-hidden">Actions</span>,
                cell: (row) => (
                  <RowActions name={row.name} onEdit={() => setEditing(row)} onDelete={() => setDeleting(row)} />
                ),
              },
            ]}
          />
        )}
        <ListPager list={list} />
      </Card>
      <Dialog open={editing !== null} title={`Edit ${editing?.name ?? 'topic'}`} onClose={() => setEditing(null)}>
        {editing ? <TopicForm key={editing.id} topic={editing} onDone={() => setEditing(null)} /> : null}
      </Dialog>
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete ${deleting?.name ?? 'topic'}?`}
        confirmLabel="Delete topic"
        busy={remove.isPending}
        error={remove.error}
        onConfirm={() => deleting && remove.mutate(deleting)}
        onClose={() => {
          setDeleting(null);
          remove.reset();
        }}
      >
        <p>
          Contacts’ choices for it are no longer offered. Emails already sent and the consent history keep naming it.
        </p>
      </ConfirmDialog>
    </>
  );
}
