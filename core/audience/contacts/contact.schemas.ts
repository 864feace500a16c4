import { z } from 'zod';
import { isUuid } from '../../../lib/ids.js';
import { isEmailAddress } from '../../shared/addresses/email-address.js';
import { pageQueryShape, searchParam, withPageRules } from '../../shared/pagination/list-query.js';
import { SUBSCRIPTIONS } from '../topics/topic.types.js';

const address = z
  .string()
  .transform((value) => value.trim())
  .refine(isEmailAddress, 'must be an e-mail address');
const personName = z.string().max(200, 'must be at most 200 characters').nullable();
const id = (what: string) => z.string().refine(isUuid, `must be a ${what} id`);
/** Values are checked against the declared properties by the service (a 422 naming the key). */
const properties = z.record(z.string(), z.unknown());

export const topicChoiceSchema = z.object({ id: id('topic'), subscription: z.enum(SUBSCRIPTIONS) }).strict();

export const createContactSchema = z
  .object({
    email: address,
    first_name: personName.optional(),
    last_name: personName.optional(),
    unsubscribed: z.boolean().optional(),
    properties: properties.optional(),
    segments: z
      .array(z.object({ id: id('segment') }).strict())
      .max(100)
      .optional(),
    topics: z.array(topicChoiceSchema).max(100).optional(),
  })
  .strict();

export const updateContactSchema = z
  .object({
    email: address.optional(),
    first_name: personName.optional(),
    last_name: personName.optional(),
    unsubscribed: z.boolean().optional(),
    properties: properties.optional(),
  })
  .strict();

/** The SDK sends the array itself; the OpenAPI description wraps it in { topics }: both work. */
export const updateContactTopicsSchema = z.union([
  z.array(topicChoiceSchema).min(1).max(100),
  z.object({ topics: z.array(topicChoiceSchema).min(1).max(100) }).strict(),
]);

export const listContactsQuerySchema = withPageRules(
  z
    .object({
      ...pageQueryShape,
      segment_id: id('segment').optional(),
      audience_id: id('segment').optional(),
      // Beyond the spec, for the dashboard's search box: the start of an address, on the
      // (team_id, email_normalized) index, so it stays fast at a million contacts.
      q: searchParam(320)
        .transform((value) => value.trim())
        .describe('Only contacts whose address starts with this (case-insensitive), in address order')
        .optional(),
    })
    .strict(),
).superRefine((query, ctx) => {
  if (query.q !== undefined && (query.segment_id ?? query.audience_id) !== undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['q'],
      message: 'q searches all contacts: it cannot be used with segment_id',
    });
});

export const contactPageQuerySchema = withPageRules(z.object({ ...pageQueryShape }).strict());

export type CreateContactInput = z.infer<typeof createContactSchema>;
export type UpdateContactInput = z.infer<typeof updateContactSchema>;
export type TopicChoice = z.infer<typeof topicChoiceSchema>;
