import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { Checkbox, TextArea, TextField } from '../../ui/field';
import { Card } from '../../ui/page';
import { useToast } from '../../ui/toast';
import { addressList } from './draft-editor';
import { useRefreshInbox } from './inbox-cache';
import { inboxPath, threadPath, type InboxMessage } from './inbox-types';

export type Compose = { mode: 'reply' | 'forward'; message: InboxMessage };

/**
 * A reply to (or forward of) one email of the thread, sent from the inbox's address. A reply
 * can be kept as a draft instead (it then waits under Drafts, and the thread shows it has one).
 */
export function Composer({
  inboxId,
  threadId,
  compose,
  onDone,
}: {
  inboxId: string;
  threadId: string;
  compose: Compose;
  onDone: () => void;
}) {
  const toast = useToast();
  const refresh = useRefreshInbox(inboxId);
  const [text, setText] = useState('');
  const [to, setTo] = useState('');
  const [replyAll, setReplyAll] = useState(false);
  const emailPath = `${threadPath(inboxId, threadId)}/emails/${compose.message.id}`;
  const reply = compose.mode === 'reply';
  const send = useMutation({
    mutationFn: () =>
      reply
        ? api.post(`${emailPath}/reply`, { text, ...(replyAll ? { reply_all: true } : {}) })
        : api.post(`${emailPath}/forward`, { to: addressList(to) ?? [], ...(text ? { text } : {}) }),
    onSuccess: async () => {
      toast(reply ? 'Reply sent' : 'Email forwarded');
      await refresh();
      onDone();
    },
  });
  const saveDraft = useMutation({
    mutationFn: () =>
      api.post(`${inboxPath(inboxId)}/drafts`, { thread_id: threadId, reply_to_email_id: compose.message.id, text }),
    onSuccess: async () => {
      toast('Reply saved as a draft');
      await refresh();
      onDone();
    },
  });
  const error = send.error ?? saveDraft.error;
  const title = reply ? `Reply to ${compose.message.from}` : 'Forward';
  return (
    <Card title={title} id="composer">
      <form
        className="stack"
        aria-label={reply ? 'Reply' : 'Forward'}
        onSubmit={(event) => {
          event.preventDefault();
          send.mutate();
        }}
      >
        {reply ? null : (
          <TextField
            label="To"
            required
            value={to}
            placeholder="billing@example.com"
            hint="Addresses separated by commas."
            onChange={(event) => setTo(event.target.value)}
            error={fieldError(error, 'to')}
          />
        )}
        <TextArea
          label={reply ? 'Your reply' : 'Note (above the forwarded email)'}
          rows={7}
          required={reply}
          value={text}
          onChange={(event) => setText(event.target.value)}
          error={fieldError(error, 'text')}
          // The editor opens for writing: focus goes where the person types.
          autoFocus
        />
        {reply ? (
          <Checkbox
            label="Reply to everyone on the email"
            checked={replyAll}
            onChange={(event) => setReplyAll(event.target.checked)}
          />
        ) : null}
        <ErrorMessage error={error} />
        <div className="form-actions">
          <Button type="submit" variant="primary" busy={send.isPending}>
            {reply ? 'Send reply' : 'Forward'}
          </Button>
          {reply ? (
            <Button busy={saveDraft.isPending} onClick={() => saveDraft.mutate()}>
              Save as draft
            </Button>
          ) : null}
          <Button variant="ghost" onClick={onDone}>
            Cancel
          </Button>
        </div>
      </form>
    </Card>
  );
}
