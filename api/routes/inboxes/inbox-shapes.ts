import { z } from 'zod';
import type { Caller } from '../../../core/platform/auth/caller.js';
import type { InboxActor } from '../../../core/inboxes/inbox.types.js';
import { AGENT_ACTIONS, AGENT_TONES, INBOX_FOLDERS } from '../../../core/inboxes/inbox.types.js';

/** Response schemas of the inbox routes (the SDK's Inbox* types), and what every route shares. */
export const tag = 'inboxes';
export const read = 'inboxes:read';
export const write = 'inboxes:write';
export const inboxParam = z.string().min(1).max(320).describe('Inbox id or email address');
export const isolation = { param: 'inbox', resource: 'inbox' };

/** Who acts, for the inbox.* events' `source`: a signed-in person in the dashboard, else the API. */
export const sourceOf = (caller: Caller): InboxActor => (caller.member ? 'dashboard' : 'api');

export const ref = (object: string) => z.object({ object: z.literal(object), id: z.string() });

export const inboxItem = z.object({
  id: z.string(),
  name: z.string().nullable(),
  email_address: z.string(),
  from_name: z.string().nullable(),
  unread: z.number().int(),
  last_received: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const inboxDetail = z.object({
  object: z.literal('inbox'),
  id: z.string(),
  name: z.string(),
  email_address: z.string(),
  domain_id: z.string(),
  receiving_address: z.string().nullable(),
  from_name: z.string().nullable(),
  unread: z.number().int(),
  drafts: z.number().int(),
  last_received: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const agentSchema = z.object({
  object: z.literal('inbox_agent'),
  instructions: z.string().nullable(),
  tone: z.enum(AGENT_TONES).nullable(),
  actions: z.array(z.enum(AGENT_ACTIONS)),
});

export const labelSchema = z.object({ id: z.string(), name: z.string(), color: z.string(), created_at: z.string() });
export const threadLabel = z.object({ id: z.string(), name: z.string(), color: z.string() });
export const threadLabelList = z.object({ object: z.literal('list'), data: z.array(threadLabel) });

export const threadSummary = z.object({
  object: z.literal('inbox_thread'),
  id: z.string(),
  subject: z.string().nullable(),
  folder: z.enum(INBOX_FOLDERS),
  labels: z.array(threadLabel),
  read: z.boolean(),
  assignee_email: z.string().nullable(),
});

export const threadItem = z.object({
  id: z.string(),
  subject: z.string().nullable(),
  from: z.string().nullable(),
  to: z.array(z.string()),
  cc: z.array(z.string()),
  bcc: z.array(z.string()),
  labels: z.array(threadLabel),
  email_count: z.number().int(),
  has_attachment: z.boolean(),
  has_draft: z.boolean(),
  read: z.boolean(),
  received_at: z.string(),
  folder: z.enum(INBOX_FOLDERS),
  assignee_email: z.string().nullable(),
});

export const threadAction = z.object({
  id: z.string(),
  action: z.string(),
  source: z.string(),
  reason: z.string().nullable(),
  detail: z.record(z.string(), z.unknown()).nullable(),
  created_at: z.string(),
});

export const messageSchema = z.object({
  id: z.string(),
  direction: z.enum(['inbound', 'outbound']),
  from: z.string(),
  to: z.array(z.string()),
  cc: z.array(z.string()),
  bcc: z.array(z.string()),
  reply_to: z.array(z.string()),
  subject: z.string().nullable(),
  message_id: z.string().nullable(),
  html: z.string().nullable(),
  text: z.string().nullable(),
  attachments: z.array(z.object({ id: z.string(), filename: z.string().nullable(), size: z.number().nullable() })),
  read: z.boolean(),
  received_at: z.string(),
});

const draftFile = z.object({ id: z.string(), filename: z.string(), content_type: z.string(), size: z.number().int() });
const draftCommon = {
  id: z.string(),
  type: z.enum(['standalone', 'reply']),
  to: z.array(z.string()).nullable(),
  cc: z.array(z.string()),
  bcc: z.array(z.string()),
  subject: z.string().nullable(),
  thread_id: z.string().nullable(),
  reply_to_email_id: z.string().nullable(),
  updated_at: z.string(),
  attachments: z.array(draftFile),
};
export const draftSchema = z.object({
  object: z.literal('inbox_draft'),
  ...draftCommon,
  html: z.string().nullable(),
  text: z.string().nullable(),
  email_id: z.string().nullable(),
  created_at: z.string(),
});
export const draftItem = z.object({ ...draftCommon, snippet: z.string().nullable() });
