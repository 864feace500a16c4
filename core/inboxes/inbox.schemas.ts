import { z } from 'zod';
import { isUuid } from '../../lib/ids.js';
import { unprocessable } from '../../lib/validation.js';
import { isEmailAddress } from '../shared/addresses/email-address.js';
import { parseMailbox } from '../shared/addresses/mailbox.js';
import { pageQueryShape, withPageRules } from '../shared/pagination/list-query.js';
import { dateOrInstantParam, endNotBeforeStart } from '../shared/pagination/date-filters.js';
import { attachmentSchema } from '../sending/emails/email.schemas.js';
import { headerNameProblem, headerValueProblem, headersSizeProblem } from '../sending/emails/header-rules.js';
import { AGENT_ACTIONS, AGENT_TONES, INBOX_FOLDERS, MOVE_FOLDERS } from './inbox.types.js';

/** Request bodies and queries of the inbox routes, as the SDK's inboxes.* methods send them. */

const oneLine = (max: number) =>
  z
    .string()
    .max(max, `must be at most ${max} characters`)
    .refine((value) => !/[\u0000-\u001f\u007f]/.test(value), 'must be one line without control characters');

const address = z
  .string()
  .transform((value) => value.trim())
  .refine(isEmailAddress, 'must be an email address such as support@example.com');

export const createInboxSchema = z
  .object({
    email_address: address,
    name: oneLine(255).optional(),
    from_name: oneLine(255).optional(),
    // The SDK's option; an inbox's mail always arrives at its own address, so it changes nothing here.
    forwarding: z.boolean().optional(),
  })
  .strict();

export const updateInboxSchema = z
  .object({ name: oneLine(255).optional(), from_name: oneLine(255).optional() })
  .strict();

export const MAX_AGENT_INSTRUCTIONS = 10_000;

export const updateAgentSchema = z
  .object({
    instructions: z
      .string()
      .max(MAX_AGENT_INSTRUCTIONS, `must be at most ${MAX_AGENT_INSTRUCTIONS} characters`)
      .nullable()
      .optional(),
    tone: z.enum(AGENT_TONES).nullable().optional(),
    actions: z.array(z.enum(AGENT_ACTIONS)).max(AGENT_ACTIONS.length).optional(),
  })
  .strict();

/** #RRGGBB, as the SDK's InboxLabelColor says; another form is well-formed JSON but refused (422). */
const color = z
  .string()
  .refine(
    (value) => /^#[0-9A-Fa-f]{6}$/.test(value),
    unprocessable('must be a hex colour in the #RRGGBB format, such as #E93D82'),
  );

const labelName = z
  .string()
  .transform((value) => value.trim())
  .pipe(z.string().min(1, 'must not be blank').max(100, 'must be at most 100 characters'));

export const createLabelSchema = z.object({ name: labelName, color: color.optional() }).strict();
export const updateLabelSchema = z.object({ name: labelName.optional(), color: color.optional() }).strict();

const labelId = z.string().refine(isUuid, 'must be a label id');
export const addThreadLabelsSchema = z
  .object({
    labels: z.array(labelId).min(1, 'send between 1 and 10 label ids').max(10, 'send between 1 and 10 label ids'),
  })
  .strict();
export const setThreadLabelsSchema = z
  .object({ labels: z.array(labelId).max(10, 'send at most 10 label ids') })
  .strict();

export const updateThreadSchema = z
  .object({
    read: z.boolean().optional(),
    folder: z.enum(MOVE_FOLDERS).optional(),
    // Beyond the SDK: assignment to a team member (the dashboard's), null to unassign.
    assignee_email: address.nullable().optional(),
  })
  .strict();

/** A comma-separated query list (the SDK joins arrays with commas). */
const commaList = <T extends string>(item: z.ZodType<T, string>) =>
  z
    .string()
    .superRefine((value, ctx) => {
      const parts = splitList(value);
      if (parts.length > 50) ctx.addIssue({ code: 'custom', message: 'at most 50 values' });
      for (const part of parts) {
        const checked = item.safeParse(part);
        if (!checked.success)
          ctx.addIssue({ code: 'custom', message: `${part}: ${checked.error.issues[0]?.message ?? 'is not allowed'}` });
      }
    })
    .transform((value) => splitList(value) as T[]);

const splitList = (value: string) =>
  value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');

const booleanParam = z.enum(['true', 'false']).transform((value) => value === 'true');

const threadListShape = {
  ...pageQueryShape,
  folders: commaList(z.enum(INBOX_FOLDERS)).optional(),
  labels: commaList(labelId).optional(),
  read: booleanParam.optional(),
};

export const listThreadsQuerySchema = withPageRules(z.object(threadListShape).strict());

const addressPart = z.string().max(320);
export const searchThreadsQuerySchema = withPageRules(
  z
    .object({
      ...threadListShape,
      query: z.string().max(200, 'must be at most 200 characters').optional(),
      from: commaList(addressPart).optional(),
      to: commaList(addressPart).optional(),
      cc: commaList(addressPart).optional(),
      bcc: commaList(addressPart).optional(),
      has_attachment: booleanParam.optional(),
      start_date: dateOrInstantParam('start').optional(),
      end_date: dateOrInstantParam('end').optional(),
    })
    .strict(),
).superRefine(endNotBeforeStart);

export const pageOnlyQuerySchema = withPageRules(z.object(pageQueryShape).strict());

/** Threading headers a send from an inbox sets itself. */
const OWN_HEADERS = new Set(['in-reply-to', 'references', 'reply-to']);

/**
 * Custom headers of a reply, forward or draft send: as on POST /emails, except that every
 * problem is a 422 (the SDK's comments), and In-Reply-To, References and Reply-To are ours.
 */
export const inboxHeadersSchema = z
  .record(z.string(), z.string())
  .nullable()
  .superRefine((headers, ctx) => {
    const refuse = (path: (string | number)[], message: string) =>
      ctx.addIssue({ code: 'custom', path, message, params: { unprocessable: true } });
    for (const [name, value] of Object.entries(headers ?? {})) {
      if (name.trim() === '') refuse([name], 'a header name cannot be empty');
      else if (OWN_HEADERS.has(name.toLowerCase())) refuse([name], `${name} is set by the inbox and cannot be given`);
      else {
        const problem =
          (/[\r\n\u0000]/.test(name) ? 'may not contain line breaks or null characters' : undefined) ??
          headerNameProblem(name) ??
          headerValueProblem(value);
        if (problem) refuse([name], problem);
      }
    }
    const tooLarge = headersSizeProblem(headers ?? {});
    if (tooLarge) refuse([], tooLarge);
  });

const mailbox = z.string().refine((value) => parseMailbox(value) !== undefined, 'must be an address or Name <address>');
const mailboxes = z.union([mailbox, z.array(mailbox)]).transform((value) => (Array.isArray(value) ? value : [value]));

export const replySchema = z
  .object({
    cc: mailboxes.optional(),
    bcc: mailboxes.optional(),
    html: z.string().optional(),
    text: z.string().optional(),
    subject: oneLine(998).optional(),
    reply_all: z.boolean().optional(),
    attachments: z.array(attachmentSchema).max(10, 'at most 10 attachments').optional(),
    headers: inboxHeadersSchema.optional(),
  })
  .strict();

export const forwardSchema = replySchema.omit({ reply_all: true }).extend({ to: mailboxes }).strict();

/** A draft's attachment: content (base64) with a content type, or a path fetched now. */
const draftAttachment = z
  .object({
    filename: z.string().min(1).max(255),
    content: z.string().optional(),
    path: z.string().optional(),
    content_type: attachmentSchema.shape.content_type,
    content_id: z.string().optional(),
  })
  .strict()
  .superRefine((value, ctx) => {
    if ((value.content === undefined) === (value.path === undefined))
      ctx.addIssue({
        code: 'custom',
        path: ['content'],
        message: 'give either content or path',
        params: { unprocessable: true },
      });
    if (value.content !== undefined && !value.content_type)
      ctx.addIssue({
        code: 'custom',
        path: ['content_type'],
        message: 'is required with content',
        params: { unprocessable: true },
      });
  });

const nullableMailboxes = z.union([mailboxes, z.null()]);
/**
 * A draft's bodies are rows (a sent email's are spool records): each at most a million
 * characters, so both together stay inside a MEDIUMTEXT column and MariaDB's default packet.
 */
export const MAX_DRAFT_BODY_CHARS = 1_000_000;
const draftBody = z.string().max(MAX_DRAFT_BODY_CHARS, `must be at most ${MAX_DRAFT_BODY_CHARS} characters`);
const draftFields = {
  to: nullableMailboxes.optional(),
  cc: nullableMailboxes.optional(),
  bcc: nullableMailboxes.optional(),
  subject: oneLine(998).nullable().optional(),
  text: draftBody.nullable().optional(),
  html: draftBody.nullable().optional(),
};

export const createDraftSchema = z
  .object({
    ...draftFields,
    attachments: z.array(draftAttachment).max(10, 'at most 10 attachments').optional(),
    thread_id: z.string().refine(isUuid, 'must be a thread id').optional(),
    reply_to_email_id: z.string().refine(isUuid, 'must be an email id').optional(),
  })
  .strict();

export const updateDraftSchema = z
  .object({
    ...draftFields,
    attachments: z.array(draftAttachment).max(10, 'at most 10 attachments').nullable().optional(),
  })
  .strict();

export const sendDraftSchema = z.object({ headers: inboxHeadersSchema.optional() }).strict();

export type ReplyInput = z.output<typeof replySchema>;
export type ForwardInput = z.output<typeof forwardSchema>;
export type CreateDraftInput = z.output<typeof createDraftSchema>;
export type UpdateDraftInput = z.output<typeof updateDraftSchema>;
export type DraftAttachmentInput = z.output<typeof draftAttachment>;
export type ThreadListQuery = z.output<typeof searchThreadsQuerySchema>;
