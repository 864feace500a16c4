import { z } from 'zod';
import { isUuid } from '../../../lib/ids.js';
import { unprocessable } from '../../../lib/validation.js';
import { findHiddenCharacter } from '../../../lib/text/hidden-characters.js';
import { parseMailbox } from '../../shared/addresses/mailbox.js';
import { pageQueryShape, withPageRules } from '../../shared/pagination/list-query.js';
import { MAX_FILENAME_CHARS, MIME_TYPE } from './attachment-rules.js';
import { headerNameProblem, headersSizeProblem, headerValueProblem } from './header-rules.js';
import { createdRangeRule, emailListFilterShape } from './email-list-filter.js';

const mailbox = z
  .string()
  .refine(
    (value) => findHiddenCharacter(value) === undefined,
    unprocessable('must not contain bidirectional-control or zero-width characters (in the address or the name)'),
  )
  .refine((value) => parseMailbox(value) !== undefined, 'must be an address or Name <address>, without line breaks');
const mailboxes = z.union([mailbox, z.array(mailbox)]).transform((value) => (Array.isArray(value) ? value : [value]));
const tagText = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[A-Za-z0-9_-]+$/, 'may contain only A-Z a-z 0-9 _ -');

/** One attachment as POST /emails takes it (content or path); inbox replies and forwards take the same. */
export const attachmentSchema = z
  .object({
    filename: z
      .string()
      .min(1)
      .max(MAX_FILENAME_CHARS)
      .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), 'must not contain control characters')
      .optional(),
    content: z.string().optional(),
    path: z.string().optional(),
    content_type: z
      .string()
      .regex(MIME_TYPE, 'must be a MIME type such as application/pdf (type and subtype at most 127 characters each)')
      .optional(),
    content_id: z
      .string()
      .min(1)
      .max(255)
      .regex(/^[!-;=?-~]+$/, 'printable ASCII without spaces or angle brackets')
      .optional(),
  })
  .strict();

export const sendEmailSchema = z
  .object({
    from: mailbox.optional(),
    to: mailboxes,
    cc: mailboxes.optional(),
    bcc: mailboxes.optional(),
    // Not counted toward the 50 recipients (spec); bounded on its own, as a template's reply_to is.
    reply_to: mailboxes.pipe(z.array(z.string()).max(50, 'at most 50 reply-to addresses')).optional(),
    subject: z.string().optional(),
    html: z.string().optional(),
    text: z.string().optional(),
    scheduled_at: z.string().min(1).optional(),
    headers: z
      .record(z.string(), z.string())
      .superRefine((headers, ctx) => {
        for (const [name, value] of Object.entries(headers)) {
          const problem = headerNameProblem(name) ?? headerValueProblem(value);
          if (problem) ctx.addIssue({ code: 'custom', path: [name], message: problem });
        }
        const tooLarge = headersSizeProblem(headers);
        if (tooLarge) ctx.addIssue({ code: 'custom', path: [], message: tooLarge });
      })
      .optional(),
    attachments: z.array(attachmentSchema).max(100, 'at most 100 attachments').optional(),
    tags: z
      .array(z.object({ name: tagText(252), value: tagText(256) }).strict())
      .max(50, 'at most 50 tags')
      .superRefine((tags, ctx) => {
        const seen = new Set<string>();
        tags.forEach((tag, i) => {
          if (seen.has(tag.name))
            ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `${tag.name} appears twice` });
          seen.add(tag.name);
        });
      })
      .optional(),
    template: z
      .object({ id: z.string().min(1).max(63), variables: z.record(z.string(), z.unknown()).optional() })
      .strict()
      .optional(),
    topic_id: z.string().refine(isUuid, 'must be a topic id').optional(),
  })
  .strict();

/** A batch item: a send without attachments (the batch API takes none, as the SDK says). */
export const batchItemSchema = sendEmailSchema.omit({ attachments: true });

export const batchBodySchema = z
  .array(z.unknown())
  .min(1, 'send at least one email')
  .max(100, 'at most 100 emails per batch');

export const rescheduleSchema = z.object({ scheduled_at: z.string().min(1) }).strict();

/** GET /emails: the SDK's page parameters and the dashboard's filters (email-list-filter.ts). */
export const listEmailsQuerySchema = withPageRules(
  z.object({ ...pageQueryShape, ...emailListFilterShape }).strict(),
).superRefine(createdRangeRule);

export type SendEmailInput = z.infer<typeof sendEmailSchema>;
