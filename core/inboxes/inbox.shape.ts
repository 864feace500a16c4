import type { Inbox, InboxCounts, InboxLabel, InboxThread } from './inbox.types.js';
import type { StoredMessage } from './inbox-thread.repository.js';

/** The public shapes of the inbox resources (the SDK's Inbox*, and the inbox.* event payloads). */

export function publicInboxItem(inbox: Inbox, counts: InboxCounts) {
  return {
    id: inbox.id,
    name: inbox.name,
    email_address: inbox.emailAddress,
    from_name: inbox.fromName,
    unread: counts.unread,
    last_received: counts.lastReceived?.toISOString() ?? null,
    created_at: inbox.createdAt.toISOString(),
    updated_at: inbox.updatedAt.toISOString(),
  };
}

/** GET /inboxes/{id}: `receiving_address` is where the MX takes its mail, null while the domain does not receive. */
export function publicInbox(inbox: Inbox, counts: InboxCounts, receiving: boolean) {
  return {
    object: 'inbox' as const,
    id: inbox.id,
    name: inbox.name ?? inbox.emailAddress,
    email_address: inbox.emailAddress,
    domain_id: inbox.domainId,
    receiving_address: receiving ? inbox.emailAddress : null,
    from_name: inbox.fromName,
    unread: counts.unread,
    drafts: counts.drafts,
    last_received: counts.lastReceived?.toISOString() ?? null,
    created_at: inbox.createdAt.toISOString(),
    updated_at: inbox.updatedAt.toISOString(),
  };
}

export function publicAgent(inbox: Inbox) {
  return {
    object: 'inbox_agent' as const,
    instructions: inbox.agent.instructions,
    tone: inbox.agent.tone,
    actions: inbox.agent.actions,
  };
}

export function publicLabel(label: InboxLabel) {
  return { id: label.id, name: label.name, color: label.color, created_at: label.createdAt.toISOString() };
}

export function threadLabel(label: InboxLabel) {
  return { id: label.id, name: label.name, color: label.color };
}

export function publicThreadSummary(thread: InboxThread, labels: InboxLabel[]) {
  return {
    object: 'inbox_thread' as const,
    id: thread.id,
    subject: thread.subject,
    folder: thread.folder,
    labels: labels.map(threadLabel),
    read: thread.read,
    // Beyond the SDK's type: who the thread is assigned to (the dashboard's thread view).
    assignee_email: thread.assigneeEmail,
  };
}

/** A thread in a list: addresses of its newest email, counts and flags. */
export function publicThread(
  thread: InboxThread,
  labels: InboxLabel[],
  latest: StoredMessage | undefined,
  hasDraft: boolean,
) {
  return {
    id: thread.id,
    subject: thread.subject,
    from: latest?.from ?? null,
    to: latest?.to ?? [],
    cc: latest?.cc ?? [],
    bcc: latest?.bcc ?? [],
    labels: labels.map(threadLabel),
    email_count: thread.emailCount,
    has_attachment: thread.hasAttachment,
    has_draft: hasDraft,
    read: thread.read,
    received_at: thread.lastMessageAt.toISOString(),
    folder: thread.folder,
    // Beyond the SDK's type: who the thread is assigned to (the dashboard shows it).
    assignee_email: thread.assigneeEmail,
  };
}

/** An email of a thread without its bodies (the inbox.* events' `email`). */
export function publicMessageSummary(message: StoredMessage) {
  return {
    id: message.id,
    direction: message.direction,
    from: message.from,
    to: message.to,
    cc: message.cc,
    bcc: message.bcc,
    reply_to: message.replyTo,
    subject: message.subject,
    message_id: message.rfcMessageId ? `<${message.rfcMessageId}>` : null,
    attachments: message.attachments,
    read: message.read,
    received_at: message.receivedAt.toISOString(),
  };
}

export function publicMessage(
  message: StoredMessage,
  bodies: { html: string | null; text: string | null; attachments?: StoredMessage['attachments'] },
) {
  const { attachments, read, received_at, ...head } = publicMessageSummary(message);
  return {
    ...head,
    html: bodies.html,
    text: bodies.text,
    attachments: bodies.attachments ?? attachments,
    read,
    received_at,
  };
}
