import { z } from 'zod';
import { pageQueryShape, withPageRules } from '../../shared/pagination/list-query.js';
import { SUBSCRIPTIONS, VISIBILITIES } from './topic.types.js';

const name = z
  .string()
  .transform((value) => value.trim())
  .pipe(z.string().min(1, 'must not be blank').max(50, 'must be at most 50 characters'));
const description = z.string().max(200, 'must be at most 200 characters').nullable();

export const createTopicSchema = z
  .object({
    name,
    default_subscription: z.enum(SUBSCRIPTIONS),
    description: description.optional(),
    visibility: z.enum(VISIBILITIES).optional(),
  })
  .strict();

/**
 * default_subscription is fixed at creation: it is in the shape only so the service answers
 * the spec's 422 invalid_parameter instead of a 400 for an unknown field. `id` is in it because
 * the SDK's topics.update sends the whole payload, id included.
 */
export const updateTopicSchema = z
  .object({
    id: z.string().optional(),
    name: name.optional(),
    description: description.optional(),
    visibility: z.enum(VISIBILITIES).optional(),
    default_subscription: z.unknown().optional(),
  })
  .strict();

export const listTopicsQuerySchema = withPageRules(z.object({ ...pageQueryShape }).strict());

export type CreateTopicInput = z.infer<typeof createTopicSchema>;
export type UpdateTopicInput = z.infer<typeof updateTopicSchema>;
