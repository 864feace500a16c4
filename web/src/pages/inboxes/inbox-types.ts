/**
 * Shapes of the shared-inbox routes (api/routes/inboxes/inbox-shapes.ts; the SDK's Inbox,
 * InboxThread, InboxMessage, InboxDraft and InboxLabel) as the dashboard reads them, and the
 * words it shows for the API's enumerations.
 */
export type InboxItem = {
  id: string;
  name: string | null;
  email_address: string;
  from_name: string | null;
  unread: number;
  last_received: string | null;
  created_at: string;
  updated_at: string;
};

export type InboxDetail = Omit<InboxItem, 'name'> & {
  object: 'inbox';
  name: string;
  domain_id: string;
  receiving_address: string | null;
  drafts: number;
};

export type ThreadLabel = { id: string; name: string; color: string };
export type Label = ThreadLabel & { created_at: string };

export const FOLDERS = ['inbox', 'archive', 'spam', 'sent', 'trash'] as const;
export type Folder = (typeof FOLDERS)[number];
/** Folders a thread may be moved to (`sent` holds threads the team started). */
export const MOVE_FOLDERS = ['inbox', 'archive', 'spam', 'trash'] as const;
export const FOLDER_WORDS: Record<Folder, string> = {
  inbox: 'Inbox',
  archive: 'Archive',
  spam: 'Spam',
  sent: 'Sent',
  trash: 'Trash',
};

export type ThreadItem = {
  id: string;
  subject: string | null;
  from: string | null;
  to: string[];
  cc: string[];
  bcc: string[];
  labels: ThreadLabel[];
  email_count: number;
  has_attachment: boolean;
  has_draft: boolean;
  read: boolean;
  received_at: string;
  folder: Folder;
  assignee_email: string | null;
};

export type ThreadSummary = {
  object: 'inbox_thread';
  id: string;
  subject: string | null;
  folder: Folder;
  labels: ThreadLabel[];
  read: boolean;
  assignee_email: string | null;
};

export type ThreadAction = {
  id: string;
  action: string;
  source: string;
  reason: string | null;
  detail: Record<string, unknown> | null;
  created_at: string;
};

export type InboxMessage = {
  id: string;
  direction: 'inbound' | 'outbound';
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  reply_to: string[];
  subject: string | null;
  message_id: string | null;
  html: string | null;
  text: string | null;
  attachments: { id: string; filename: string | null; size: number | null }[];
  read: boolean;
  received_at: string;
};

type DraftCommon = {
  id: string;
  type: 'standalone' | 'reply';
  to: string[] | null;
  cc: string[];
  bcc: string[];
  subject: string | null;
  thread_id: string | null;
  reply_to_email_id: string | null;
  updated_at: string;
  attachments: { id: string; filename: string; content_type: string; size: number }[];
};
export type DraftItem = DraftCommon & { snippet: string | null };
export type Draft = DraftCommon & {
  object: 'inbox_draft';
  html: string | null;
  text: string | null;
  email_id: string | null;
  created_at: string;
};

export const AGENT_TONES = [
  'concise_professional',
  'concise_casual',
  'expanded_professional',
  'expanded_casual',
] as const;
export const TONE_WORDS: Record<string, string> = {
  concise_professional: 'Concise, professional',
  concise_casual: 'Concise, casual',
  expanded_professional: 'Detailed, professional',
  expanded_casual: 'Detailed, casual',
};
export const AGENT_ACTIONS = [
  'draft_reply',
  'forward_thread',
  'add_labels',
  'assign_thread',
  'mark_as_spam',
  'archive',
  'move_to_trash',
] as const;
export const ACTION_WORDS: Record<string, string> = {
  draft_reply: 'Draft a reply (never sent without a person)',
  forward_thread: 'Forward the thread',
  add_labels: 'Add labels',
  assign_thread: 'Assign to a team member',
  mark_as_spam: 'Mark as spam',
  archive: 'Archive',
  move_to_trash: 'Move to trash',
};
export type Agent = {
  object: 'inbox_agent';
  instructions: string | null;
  tone: (typeof AGENT_TONES)[number] | null;
  actions: string[];
};

/** A team member as GET /team/members lists them (pages/team/members-tab.tsx). */
export type Member = { id: string; email: string; name: string | null; role: string };

/** The API path of an inbox (its id; an address would work too). */
export const inboxPath = (inboxId: string) => `/inboxes/${encodeURIComponent(inboxId)}`;
export const threadPath = (inboxId: string, threadId: string) =>
  `${inboxPath(inboxId)}/threads/${encodeURIComponent(threadId)}`;

export const inboxTitle = (inbox: { name: string | null; email_address: string }) => inbox.name || inbox.email_address;
