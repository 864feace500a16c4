import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { useCursorList } from '../../api/list';
import { Link } from '../../router';
import { Badge } from '../../ui/badge';
import { Button } from '../../ui/button';
import { ConfirmDialog } from '../../ui/dialog';
import { ErrorMessage } from '../../ui/error-message';
import { Card, EmptyState, Loading } from '../../ui/page';
import { ListPager } from '../../ui/pager';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import { useToast } from '../../ui/toast';
import { DraftEditorDialog } from './draft-editor';
import { useRefreshInbox } from './inbox-cache';
import { inboxPath, type DraftItem } from './inbox-types';

/** Unsent drafts of the inbox (the team's and the agent's), newest first: edit, send or delete one. */
export function DraftsTab({ inboxId }: { inboxId: string }) {
  const path = `${inboxPath(inboxId)}/drafts`;
  const list = useCursorList<DraftItem>(path, {}, { refetchInterval: 30_000 });
  const refresh = useRefreshInbox(inboxId);
  const toast = useToast();
  const [editing, setEditing] = useState<string | null | undefined>(undefined);
  const [deleting, setDeleting] = useState<DraftItem | null>(null);
  const send = useMutation({
    mutationFn: (draft: DraftItem) => api.post(`${path}/${draft.id}/send`, {}),
    onSuccess: async () => {
      toast('Draft sent');
      await refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (draft: DraftItem) => api.delete(`${path}/${draft.id}`),
    onSuccess: async () => {
      toast('Draft deleted');
      setDeleting(null);
      await refresh();
    },
  });
  const describe = (draft: DraftItem) => draft.subject || draft.snippet?.slice(0, 40) || 'draft';
  return (
    <>
      <Card
        title="Drafts"
        id="drafts"
        actions={
          <Button variant="primary" onClick={() => setEditing(null)}>
            New draft
          </Button>
        }
      >
        <ErrorMessage error={list.error ?? send.error} />
        {list.isLoading ? (
          <Loading label="Loading drafts…" />
        ) : (
          <DataTable
            caption="Drafts"
            rows={list.rows}
            rowKey={(draft) => draft.id}
            empty={
              list.error ? null : (
                <EmptyState title="No drafts">
                  <p>Replies saved as drafts, and replies the agent writes, wait here until someone sends them.</p>
                </EmptyState>
              )
            }
            columns={[
              {
                header: 'To',
                className: 'wrap-anywhere',
                cell: (draft) =>
                  draft.to?.join(', ') ?? <span className="muted">{draft.type === 'reply' ? 'The sender' : '—'}</span>,
              },
              {
                header: 'Subject',
                cell: (draft) => (
                  <>
                    {draft.subject || <span className="muted">(no subject)</span>}{' '}
                    {draft.type === 'reply' ? <Badge tone="info">reply</Badge> : null}
                    {draft.snippet ? <div className="muted">{draft.snippet.slice(0, 120)}</div> : null}
                    {draft.thread_id ? (
                      <div>
                        <Link to={`/inboxes/${inboxId}/threads/${draft.thread_id}`}>Open its thread</Link>
                      </div>
                    ) : null}
                  </>
                ),
              },
              { header: 'Updated', className: 'nowrap', cell: (draft) => <Time value={draft.updated_at} /> },
              {
                header: <span className="visually-hidden">Actions</span>,
                cell: (draft) => (
                  <div className="row-actions">
                    <Button
                      className="btn-small"
                      onClick={() => setEditing(draft.id)}
                      aria-label={`Edit ${describe(draft)}`}
                    >
                      Edit
                    </Button>
                    <Button
                      className="btn-small"
                      busy={send.isPending && send.variables?.id === draft.id}
                      onClick={() => send.mutate(draft)}
                      aria-label={`Send ${describe(draft)}`}
                    >
                      Send
                    </Button>
                    <Button
                      className="btn-small"
                      variant="danger"
                      onClick={() => setDeleting(draft)}
                      aria-label={`Delete ${describe(draft)}`}
                    >
                      Delete
                    </Button>
                  </div>
                ),
              },
            ]}
          />
        )}
        <ListPager list={list} />
      </Card>
      {editing !== undefined ? (
        <DraftEditorDialog inboxId={inboxId} draftId={editing} onClose={() => setEditing(undefined)} />
      ) : null}
      <ConfirmDialog
        open={deleting !== null}
        title="Delete this draft?"
        confirmLabel="Delete draft"
        busy={remove.isPending}
        error={remove.error}
        onConfirm={() => deleting && remove.mutate(deleting)}
        onClose={() => {
          setDeleting(null);
          remove.reset();
        }}
      >
        <p>The draft “{deleting ? describe(deleting) : ''}” is deleted without being sent.</p>
      </ConfirmDialog>
    </>
  );
}
