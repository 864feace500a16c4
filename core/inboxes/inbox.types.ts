/** Folders a thread can be in (the SDK's INBOX_MESSAGE_FOLDERS); `sent` holds threads we started. */
export const INBOX_FOLDERS = ['inbox', 'archive', 'spam', 'sent', 'trash'] as const;
export type InboxFolder = (typeof INBOX_FOLDERS)[number];
/** Folders a caller may move a thread to (the SDK's MOVE_THREAD_FOLDERS). */
export const MOVE_FOLDERS = ['inbox', 'archive', 'spam', 'trash'] as const;
export type MoveFolder = (typeof MOVE_FOLDERS)[number];

/** The agent's actions and tones (the SDK's INBOX_AGENT_ACTIONS and INBOX_AGENT_TONES). */
export const AGENT_ACTIONS = [
  'draft_reply',
  'forward_thread',
  'add_labels',
  'assign_thread',
  'mark_as_spam',
  'archive',
  'move_to_trash',
] as const;
export type AgentAction = (typeof AGENT_ACTIONS)[number];
export const AGENT_TONES = [
  'concise_professional',
  'concise_casual',
  'expanded_professional',
  'expanded_casual',
] as const;
export type AgentTone = (typeof AGENT_TONES)[number];

/** Who did something to an inbox (the `source` of the inbox.* webhook events). */
export type InboxActor = 'api' | 'dashboard' | 'agent' | 'system';

export type Inbox = {
  id: string;
  teamId: string;
  domainId: string;
  emailAddress: string;
  name: string | null;
  fromName: string | null;
  forwarding: boolean;
  agent: { instructions: string | null; tone: AgentTone | null; actions: AgentAction[] };
  createdAt: Date;
  updatedAt: Date;
};

export type InboxCounts = { unread: number; drafts: number; lastReceived: Date | null };

export type InboxLabel = { id: string; inboxId: string; name: string; color: string; createdAt: Date };

export type InboxThread = {
  id: string;
  inboxId: string;
  teamId: string;
  subject: string | null;
  folder: InboxFolder;
  read: boolean;
  assigneeUserId: string | null;
  assigneeEmail: string | null;
  emailCount: number;
  hasAttachment: boolean;
  lastMessageAt: Date;
  createdAt: Date;
  updatedAt: Date;
};

export type InboxMessageAttachment = { id: string; filename: string | null; size: number | null };

/** One email of a thread: a reference to a received email (inbound) or a sent one (outbound). */
export type InboxMessage = {
  id: string;
  inboxId: string;
  threadId: string;
  teamId: string;
  direction: 'inbound' | 'outbound';
  /** The RFC 5322 Message-ID, without angle brackets. */
  rfcMessageId: string | null;
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  replyTo: string[];
  subject: string | null;
  attachments: InboxMessageAttachment[];
  read: boolean;
  receivedAt: Date;
};

/** What an action of the agent (or a person) did to a thread, with the reason given. */
export type ThreadAction = {
  id: string;
  threadId: string;
  action: string;
  source: InboxActor;
  reason: string | null;
  detail: Record<string, unknown> | null;
  createdAt: Date;
};
