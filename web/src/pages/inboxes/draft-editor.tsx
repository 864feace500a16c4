import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { Button } from '../../ui/button';
import { Dialog } from '../../ui/dialog';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { TextArea, TextField } from '../../ui/field';
import { Loading } from '../../ui/page';
import { useToast } from '../../ui/toast';
import { useRefreshInbox } from './inbox-cache';
import { inboxPath, type Draft } from './inbox-types';

/** "a@x.test, b@y.test" as a list; empty as null (a reply's recipients come from its email). */
export const addressList = (value: string): string[] | null => {
  const list = value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  return list.length ? list : null;
};

/**
 * A draft in a dialog: `draftId` null writes a new standalone one. Save keeps it (PATCH or
 * POST), Send saves then sends it from the inbox (a reply joins its thread).
 */
export function DraftEditorDialog({
  inboxId,
  draftId,
  onClose,
}: {
  inboxId: string;
  draftId: string | null;
  onClose: () => void;
}) {
  const path = `${inboxPath(inboxId)}/drafts`;
  const draft = useQuery({
    queryKey: [path, draftId],
    queryFn: ({ signal }) => api.get<Draft>(`${path}/${draftId}`, { signal }),
    enabled: draftId !== null,
  });
  return (
    <Dialog open title={draftId ? 'Edit draft' : 'New draft'} onClose={onClose}>
      {draftId && draft.isLoading ? <Loading label="Loading the draft…" /> : null}
      <ErrorMessage error={draft.error} />
      {draftId === null || draft.data ? (
        <DraftForm inboxId={inboxId} path={path} draft={draft.data ?? null} onClose={onClose} />
      ) : null}
    </Dialog>
  );
}

function DraftForm({
  inboxId,
  path,
  draft,
  onClose,
}: {
  inboxId: string;
  path: string;
  draft: Draft | null;
  onClose: () => void;
}) {
  const toast = useToast();
  const refresh = useRefreshInbox(inboxId);
  const [form, setForm] = useState({
    to: draft?.to?.join(', ') ?? '',
    cc: draft?.cc.join(', ') ?? '',
    subject: draft?.subject ?? '',
    text: draft?.text ?? '',
  });
  const body = () => ({
    ...(form.to.trim() || draft?.to ? { to: addressList(form.to) } : {}),
    cc: addressList(form.cc),
    subject: form.subject.trim() === '' ? null : form.subject,
    text: form.text,
  });
  const saveDraft = async (): Promise<string> => {
    if (draft) {
      await api.patch(`${path}/${draft.id}`, body());
      return draft.id;
    }
    return (await api.post<{ id: string }>(path, body())).id;
  };
  const save = useMutation({
    mutationFn: saveDraft,
    onSuccess: async () => {
      toast('Draft saved');
      await refresh();
      onClose();
    },
  });
  const send = useMutation({
    mutationFn: async () => api.post(`${path}/${await saveDraft()}/send`, {}),
    onSuccess: async () => {
      toast('Draft sent');
      await refresh();
      onClose();
    },
  });
  const error = save.error ?? send.error;
  const set = (key: keyof typeof form) => (event: { target: { value: string } }) =>
    setForm((value) => ({ ...value, [key]: event.target.value }));
  return (
    <form
      className="stack"
      aria-label="Draft"
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate();
      }}
    >
      {draft?.type === 'reply' ? <p className="muted">A reply: it joins its thread when sent.</p> : null}
      <TextField
        label="To"
        value={form.to}
        placeholder={draft?.type === 'reply' ? 'The sender of the email replied to' : 'customer@example.com'}
        onChange={set('to')}
        error={fieldError(error, 'to')}
        hint="Addresses separated by commas."
      />
      <TextField label="Cc" value={form.cc} onChange={set('cc')} error={fieldError(error, 'cc')} />
      <TextField label="Subject" value={form.subject} onChange={set('subject')} error={fieldError(error, 'subject')} />
      <TextArea label="Message" rows={8} value={form.text} onChange={set('text')} error={fieldError(error, 'text')} />
      <ErrorMessage error={error} />
      <div className="form-actions">
        <Button type="submit" busy={save.isPending}>
          Save draft
        </Button>
        <Button variant="primary" busy={send.isPending} onClick={() => send.mutate()}>
          Send
        </Button>
        <Button variant="ghost" onClick={onClose}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
