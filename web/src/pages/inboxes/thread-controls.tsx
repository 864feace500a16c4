import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, type List } from '../../api/client';
import { Button } from '../../ui/button';
import { ErrorMessage } from '../../ui/error-message';
import { SelectField } from '../../ui/field';
import { Card } from '../../ui/page';
import { useToast } from '../../ui/toast';
import { useRefreshInbox } from './inbox-cache';
import {
  FOLDER_WORDS,
  MOVE_FOLDERS,
  threadPath,
  type Folder,
  type Label,
  type Member,
  type ThreadLabel,
  type ThreadSummary,
} from './inbox-types';
import { LabelChips } from './label-chip';

/** What a person changes on a thread: read or not, its folder, who has it, and its labels. */
export function ThreadControls({
  inboxId,
  thread,
  assignee,
  labels,
}: {
  inboxId: string;
  thread: ThreadSummary;
  assignee: string | null | undefined;
  labels: Label[];
}) {
  const toast = useToast();
  const refresh = useRefreshInbox(inboxId);
  const path = threadPath(inboxId, thread.id);
  const members = useQuery({
    queryKey: ['team', 'members'],
    queryFn: () => api.get<List<Member>>('/team/members'),
  });
  const [folder, setFolder] = useState<string>(thread.folder);
  const [assignTo, setAssignTo] = useState(assignee ?? '');
  const [addLabel, setAddLabel] = useState('');
  useEffect(() => setFolder(thread.folder), [thread.folder]);
  useEffect(() => setAssignTo(assignee ?? ''), [assignee]);
  const update = useMutation({
    mutationFn: (change: { body: Record<string, unknown>; done: string }) => api.patch(path, change.body),
    onSuccess: async (_answer, change) => {
      toast(change.done);
      await refresh();
    },
  });
  const labelChange = useMutation({
    mutationFn: (change: { add?: string; remove?: ThreadLabel }) =>
      change.add
        ? api.post(`${path}/labels`, { labels: [change.add] })
        : api.delete(`${path}/labels/${change.remove!.id}`),
    onSuccess: async (_answer, change) => {
      toast(change.add ? 'Label added' : `Label ${change.remove!.name} removed`);
      setAddLabel('');
      await refresh();
    },
  });
  const onThread = new Set(thread.labels.map((label) => label.id));
  const addable = labels.filter((label) => !onThread.has(label.id));
  const folderOptions = (thread.folder === 'sent' ? ['sent', ...MOVE_FOLDERS] : [...MOVE_FOLDERS]) as Folder[];
  return (
    <Card title="Thread" id="thread-controls">
      <div className="stack thread-controls">
        <div className="row">
          <span>{thread.read ? 'Read' : <strong>Unread</strong>}</span>
          <Button
            className="btn-small"
            busy={update.isPending && update.variables?.body.read !== undefined}
            onClick={() =>
              update.mutate({
                body: { read: !thread.read },
                done: thread.read ? 'Marked unread' : 'Marked read',
              })
            }
          >
            {thread.read ? 'Mark unread' : 'Mark read'}
          </Button>
        </div>
        <form
          className="row"
          aria-label="Move the thread"
          onSubmit={(event) => {
            event.preventDefault();
            update.mutate({ body: { folder }, done: `Moved to ${FOLDER_WORDS[folder as Folder]}` });
          }}
        >
          <SelectField
            label="Folder"
            value={folder}
            onChange={(event) => setFolder(event.target.value)}
            options={folderOptions.map((name) => ({
              value: name,
              label: FOLDER_WORDS[name],
            }))}
          />
          <Button type="submit" disabled={folder === thread.folder || folder === 'sent'}>
            Move
          </Button>
        </form>
        <form
          className="row"
          aria-label="Assign the thread"
          onSubmit={(event) => {
            event.preventDefault();
            update.mutate({
              body: { assignee_email: assignTo || null },
              done: assignTo ? `Assigned to ${assignTo}` : 'Unassigned',
            });
          }}
        >
          <SelectField
            label="Assignee"
            value={assignTo}
            onChange={(event) => setAssignTo(event.target.value)}
            options={[
              { value: '', label: 'Unassigned' },
              ...(assignee && !members.data?.data.some((m) => m.email === assignee)
                ? [{ value: assignee, label: assignee }]
                : []),
              ...(members.data?.data ?? []).map((member) => ({
                value: member.email,
                label: member.name ? `${member.name} (${member.email})` : member.email,
              })),
            ]}
          />
          <Button type="submit" disabled={(assignee ?? '') === assignTo}>
            {assignTo || !assignee ? 'Assign' : 'Unassign'}
          </Button>
        </form>
        <ErrorMessage error={members.error} title="Team members:" />
        <ErrorMessage error={update.error} />
        <div>
          <h3 className="muted">Labels</h3>
          {thread.labels.length ? (
            <LabelChips labels={thread.labels} onRemove={(label) => labelChange.mutate({ remove: label })} />
          ) : (
            <p className="muted">No labels.</p>
          )}
        </div>
        {labels.length ? (
          <form
            className="row"
            aria-label="Add a label"
            onSubmit={(event) => {
              event.preventDefault();
              if (addLabel) labelChange.mutate({ add: addLabel });
            }}
          >
            <SelectField
              label="Label to add"
              value={addLabel}
              onChange={(event) => setAddLabel(event.target.value)}
              options={[
                { value: '', label: addable.length ? 'Choose a label' : 'Every label is on' },
                ...addable.map((label) => ({ value: label.id, label: label.name })),
              ]}
            />
            <Button
              type="submit"
              disabled={!addLabel}
              busy={labelChange.isPending && Boolean(labelChange.variables?.add)}
            >
              Add label
            </Button>
          </form>
        ) : (
          <p className="muted">This inbox has no labels yet: create them on its Labels tab.</p>
        )}
        <ErrorMessage error={labelChange.error} />
      </div>
    </Card>
  );
}
