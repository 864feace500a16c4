import type { Knex } from 'knex';
import { newId } from '../../lib/ids.js';
import type { EventLog } from '../events/log/event-log.js';
import { mailboxAddress } from '../shared/addresses/mailbox.js';
import { normalizeMessageId } from '../shared/addresses/message-references.js';
import type { ReceivedEmail } from '../receiving/received-email.types.js';
import type { InboxLabelRepository } from './inbox-label.repository.js';
import type { InboxRepository } from './inbox.repository.js';
import type { InboxThreadRepository, StoredMessage } from './inbox-thread.repository.js';
import { publicMessageSummary, publicThreadSummary } from './inbox.shape.js';
import type { Inbox, InboxActor, InboxFolder, InboxThread } from './inbox.types.js';

/** An email we sent from an inbox, as the conversation records it. */
export type SentFromInbox = {
  id: string;
  messageId: string;
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  replyTo: string[];
  subject: string;
  attachments: Array<{ id: string; filename: string | null; size: number | null }>;
  references: string[];
  createdAt: Date;
};

/** A thread a new received email wakes from these folders goes back to the inbox (a reply to an archived conversation is news). */
const REOPENED_FROM: ReadonlySet<InboxFolder> = new Set(['archive', 'sent']);

/**
 * Files mail into conversations: a received email for an inbox's address joins the thread that
 * holds a message it refers to (In-Reply-To, References), or starts one; an email sent from an
 * inbox joins the thread it answers (or starts one in `sent`). Both run in the transaction that
 * stores the email, so an email is never stored without its place in the inbox.
 */
export class InboxConversations {
  /** Who learns of threads started by received mail (the inbox agent), after the commit. */
  private readonly newThreadListeners: Array<(inbox: Inbox, threadId: string) => void> = [];

  constructor(
    private readonly deps: {
      inboxes: InboxRepository;
      threads: InboxThreadRepository;
      labels: InboxLabelRepository;
      events: EventLog;
    },
  ) {}

  onNewThread(listener: (inbox: Inbox, threadId: string) => void): void {
    this.newThreadListeners.push(listener);
  }

  /** Received emails of one group commit: each one joins every inbox its envelope recipients name. */
  readonly receive = async (trx: Knex.Transaction, received: ReceivedEmail[]): Promise<void> => {
    const addresses = [...new Set(received.flatMap((email) => email.receivedFor.map(mailboxAddress)))];
    const inboxes = await this.deps.inboxes.atAddresses(trx, addresses);
    if (inboxes.length === 0) return;
    const started: Array<{ inbox: Inbox; threadId: string }> = [];
    for (const email of received)
      for (const inbox of inboxes) {
        if (inbox.teamId !== email.teamId || !email.receivedFor.some((to) => mailboxAddress(to) === inbox.emailAddress))
          continue;
        const threadId = await this.receiveOne(trx, inbox, email);
        if (threadId) started.push({ inbox, threadId });
      }
    // After the commit: an agent reads the thread only once it is durable (a failed group is retried).
    if (started.length > 0)
      trx.executionPromise
        ?.then(() =>
          started.forEach(({ inbox, threadId }) =>
            this.newThreadListeners.forEach((listen) => listen(inbox, threadId)),
          ),
        )
        .catch(() => undefined);
  };

  /** Files one email in one inbox; the id of the thread it started, if it started one. */
  private async receiveOne(trx: Knex.Transaction, inbox: Inbox, email: ReceivedEmail): Promise<string | null> {
    const references = email.references ?? [];
    const existing = await this.deps.threads.threadOfMessageIds(trx, inbox.id, references);
    const threadId = existing?.id ?? newId();
    const message: StoredMessage = {
      id: email.id,
      inboxId: inbox.id,
      threadId,
      teamId: inbox.teamId,
      direction: 'inbound',
      rfcMessageId: normalizeMessageId(email.messageId),
      references,
      from: email.from,
      to: email.to,
      cc: email.cc,
      bcc: email.bcc,
      replyTo: email.replyTo,
      subject: email.subject || null,
      attachments: email.attachments.map((a) => ({ id: a.id, filename: a.filename, size: a.size })),
      read: false,
      receivedAt: email.createdAt,
    };
    let thread: InboxThread;
    if (existing) {
      const folder = REOPENED_FROM.has(existing.folder) ? 'inbox' : existing.folder;
      await this.deps.threads.addedMessage(trx, existing.id, message, { read: false, folder });
      thread = { ...existing, read: false, folder, emailCount: existing.emailCount + 1 };
    } else {
      thread = this.newThread(inbox, threadId, message, 'inbox');
      await this.deps.threads.insertThread(trx, thread);
    }
    await this.deps.threads.insertMessage(trx, message);
    await this.recordEmailEvents(trx, inbox, thread, message, existing ? null : 'system');
    return existing ? null : threadId;
  }

  /**
   * An email sent from an inbox (a reply, a forward, a draft sent) joins `thread`, or starts a
   * thread in `sent` when there is none; returns the thread.
   */
  async recordSent(
    trx: Knex.Transaction,
    inbox: Inbox,
    thread: InboxThread | null,
    sent: SentFromInbox,
    source: InboxActor,
    extra: Record<string, unknown> = {},
  ): Promise<InboxThread> {
    const threadId = thread?.id ?? newId();
    const message: StoredMessage = {
      id: sent.id,
      inboxId: inbox.id,
      threadId,
      teamId: inbox.teamId,
      direction: 'outbound',
      rfcMessageId: normalizeMessageId(sent.messageId),
      references: [...sent.references].reverse(),
      from: sent.from,
      to: sent.to,
      cc: sent.cc,
      bcc: sent.bcc,
      replyTo: sent.replyTo,
      subject: sent.subject || null,
      attachments: sent.attachments,
      read: true,
      receivedAt: sent.createdAt,
    };
    let after: InboxThread;
    if (thread) {
      await this.deps.threads.addedMessage(trx, thread.id, message, {});
      after = { ...thread, emailCount: thread.emailCount + 1, lastMessageAt: sent.createdAt };
    } else {
      after = { ...this.newThread(inbox, threadId, message, 'sent'), read: true };
      await this.deps.threads.insertThread(trx, after);
    }
    await this.deps.threads.insertMessage(trx, message);
    const labels = (await this.deps.labels.ofThreads(trx, [after.id])).get(after.id) ?? [];
    await this.deps.events.record(
      inbox.teamId,
      'inbox.email.sent',
      {
        source,
        inbox_id: inbox.id,
        thread_id: after.id,
        thread: publicThreadSummary(after, labels),
        email_id: message.id,
        email: publicMessageSummary(message),
        ...extra,
      },
      trx,
    );
    return after;
  }

  private newThread(inbox: Inbox, id: string, message: StoredMessage, folder: InboxFolder): InboxThread {
    return {
      id,
      inboxId: inbox.id,
      teamId: inbox.teamId,
      subject: message.subject,
      folder,
      read: message.read,
      assigneeUserId: null,
      assigneeEmail: null,
      emailCount: 1,
      hasAttachment: message.attachments.length > 0,
      lastMessageAt: message.receivedAt,
      createdAt: message.receivedAt,
      updatedAt: message.receivedAt,
    };
  }

  private async recordEmailEvents(
    trx: Knex.Transaction,
    inbox: Inbox,
    thread: InboxThread,
    message: StoredMessage,
    startedBy: InboxActor | null,
  ): Promise<void> {
    const labels = (await this.deps.labels.ofThreads(trx, [thread.id])).get(thread.id) ?? [];
    const data = {
      source: 'system' as const,
      inbox_id: inbox.id,
      thread_id: thread.id,
      thread: publicThreadSummary(thread, labels),
      email_id: message.id,
      email: publicMessageSummary(message),
    };
    if (startedBy) await this.deps.events.record(inbox.teamId, 'inbox.thread.created', data, trx);
    await this.deps.events.record(inbox.teamId, 'inbox.email.received', data, trx);
  }
}
