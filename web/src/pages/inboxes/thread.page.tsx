import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { api, type List } from '../../api/client';
import type { PageProps } from '../../routes';
import { ErrorMessage } from '../../ui/error-message';
import { Card, EmptyState, Loading, PageHeader } from '../../ui/page';
import { Composer, type Compose } from './composer';
import { useRefreshInbox } from './inbox-cache';
import {
  FOLDER_WORDS,
  inboxPath,
  inboxTitle,
  threadPath,
  type InboxDetail,
  type InboxMessage,
  type ThreadSummary,
} from './inbox-types';
import { useLabels } from './labels-tab';
import { ThreadActions } from './thread-actions';
import { ThreadControls } from './thread-controls';
import { ThreadMessages } from './thread-messages';
import './inboxes.css';

/** One thread: its emails in order, reply and forward, its folder, assignee and labels, and what the agent did. */
export default function ThreadPage({ params }: PageProps) {
  const inboxId = params.id!;
  const threadId = params.threadId!;
  const path = threadPath(inboxId, threadId);
  const refresh = useRefreshInbox(inboxId);
  const [compose, setCompose] = useState<Compose | null>(null);
  const inbox = useQuery({
    queryKey: [inboxPath(inboxId)],
    queryFn: ({ signal }) => api.get<InboxDetail>(inboxPath(inboxId), { signal }),
  });
  const thread = useQuery({
    queryKey: [path],
    queryFn: ({ signal }) => api.get<ThreadSummary>(path, { signal }),
  });
  const emails = useQuery({
    queryKey: [`${path}/emails`],
    queryFn: ({ signal }) => api.get<List<InboxMessage>>(`${path}/emails`, { query: { limit: 100 }, signal }),
    refetchInterval: 30_000,
  });
  const labels = useLabels(inboxId);
  // Opening an unread thread reads it (once; "Mark unread" then stays).
  const markedRead = useRef(false);
  const markRead = useMutation({ mutationFn: () => api.patch(path, { read: true }), onSuccess: refresh });
  useEffect(() => {
    if (thread.data && !thread.data.read && !markedRead.current) {
      markedRead.current = true;
      markRead.mutate();
    }
  }, [thread.data, markRead]);

  const back = {
    to: `/inboxes/${inboxId}${thread.data && thread.data.folder !== 'inbox' ? `?folder=${thread.data.folder}` : ''}`,
    label: inbox.data ? `${inboxTitle(inbox.data)} · ${FOLDER_WORDS[thread.data?.folder ?? 'inbox']}` : 'Inbox',
  };
  if (thread.isLoading) return <Loading label="Loading the thread…" />;
  if (!thread.data)
    return (
      <>
        <PageHeader title="Thread" back={back} />
        <ErrorMessage error={thread.error} title="This thread could not be shown." />
      </>
    );
  const messages = emails.data?.data ?? [];
  const openCompose = (next: Compose) => {
    setCompose(next);
    window.setTimeout(() => document.getElementById('composer-title')?.scrollIntoView({ block: 'center' }), 0);
  };
  return (
    <>
      <PageHeader
        title={thread.data.subject || '(no subject)'}
        back={back}
        description={`${messages.length || '…'} email${messages.length === 1 ? '' : 's'} · in ${FOLDER_WORDS[thread.data.folder]}`}
      />
      <div className="email-page">
        <div className="stack email-main">
          <ErrorMessage error={emails.error} title="The emails could not be read." />
          {emails.isLoading ? (
            <Loading label="Loading the emails…" />
          ) : messages.length ? (
            <ThreadMessages
              messages={messages}
              onReply={(message) => openCompose({ mode: 'reply', message })}
              onForward={(message) => openCompose({ mode: 'forward', message })}
            />
          ) : emails.error ? null : (
            <Card>
              <EmptyState title="No emails in this thread" />
            </Card>
          )}
          {compose ? (
            <Composer
              key={`${compose.mode}-${compose.message.id}`}
              inboxId={inboxId}
              threadId={threadId}
              compose={compose}
              onDone={() => setCompose(null)}
            />
          ) : null}
        </div>
        <div className="stack email-side">
          <ThreadControls
            inboxId={inboxId}
            thread={thread.data}
            assignee={thread.data?.assignee_email}
            labels={labels.data?.data ?? []}
          />
          <ThreadActions inboxId={inboxId} threadId={threadId} />
        </div>
      </div>
    </>
  );
}
