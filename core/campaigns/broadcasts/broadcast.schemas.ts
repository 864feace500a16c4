import { z } from 'zod';
import { isUuid } from '../../../lib/ids.js';
import { pageQueryShape, searchParam, withPageRules } from '../../shared/pagination/list-query.js';
import { BROADCAST_STATUSES, MAX_BROADCAST_BODY } from './broadcast.types.js';

const id = (what: string) =>
  z
    .string()
    .refine(isUuid, `must be a ${what} id`)
    .transform((value) => value.toLowerCase());
const replyTo = z.union([z.string().max(320), z.array(z.string().max(320)).max(50)]);
const body = z.string().max(MAX_BROADCAST_BODY, `must be at most ${MAX_BROADCAST_BODY} bytes`);

/** Fields a draft carries; create requires from and subject (spec), update changes what is present. */
const content = {
  name: z.string().max(200, 'must be at most 200 characters').nullable().optional(),
  segment_id: id('segment').optional(),
  audience_id: id('segment').optional(),
  from: z.string().min(1).max(600),
  subject: z.string().min(1).max(998),
  reply_to: replyTo.nullable().optional(),
  preview_text: z.string().max(500).nullable().optional(),
  html: body.nullable().optional(),
  text: body.nullable().optional(),
  topic_id: id('topic').nullable().optional(),
  template: z
    .object({ id: z.string().min(1).max(200) })
    .strict()
    .optional(),
};

export const createBroadcastSchema = z
  .object({
    ...content,
    send: z.boolean().optional(),
    scheduled_at: z.string().min(1).max(100).optional(),
  })
  .strict();

export const updateBroadcastSchema = z
  .object({ ...content, from: content.from.optional(), subject: content.subject.optional() })
  .strict();

export const sendBroadcastSchema = z.object({ scheduled_at: z.string().min(1).max(100).optional() }).strict();

export const listBroadcastsQuerySchema = withPageRules(
  z
    .object({ ...pageQueryShape, search: searchParam(200).optional(), status: z.enum(BROADCAST_STATUSES).optional() })
    .strict(),
);

export const RECIPIENT_TYPES = [
  'sent',
  'delivered',
  'opened',
  'clicked',
  'bounced',
  'complained',
  'unsubscribed',
  'suppressed',
] as const;

export const recipientsQuerySchema = withPageRules(
  z
    .object({
      ...pageQueryShape,
      type: z.enum(RECIPIENT_TYPES),
      email: z.string().max(320).optional(),
      bounce_type: z.enum(['permanent', 'transient', 'undetermined']).optional(),
    })
    .strict()
    .superRefine((value, ctx) => {
      if (value.bounce_type && value.type !== 'bounced')
        ctx.addIssue({ code: 'custom', path: ['bounce_type'], message: 'only valid when type is bounced' });
    }),
);

export const clickedLinksQuerySchema = withPageRules(z.object({ ...pageQueryShape }).strict());

export type CreateBroadcastInput = z.infer<typeof createBroadcastSchema>;
export type UpdateBroadcastInput = z.infer<typeof updateBroadcastSchema>;
export type RecipientsQuery = z.infer<typeof recipientsQuerySchema>;
