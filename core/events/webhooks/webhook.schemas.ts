import { z } from 'zod';
import { pageQueryShape, withPageRules } from '../../shared/pagination/list-query.js';
import { ENDPOINT_STATUSES } from './webhook.types.js';

/**
 * Bodies of the webhook routes. Only their shape is checked here (a missing field is 422
 * missing_required_field, a wrong type 400 validation_error); whether the URL is routable and
 * the event types subscribable is the service's refusal (422 validation_error).
 */
const endpoint = z.string().min(1, 'must not be empty').max(2048, 'must be at most 2048 characters');
const events = z.array(z.string().max(64)).min(1, 'must list at least one event type').max(100);

export const createWebhookSchema = z.object({ endpoint, events }).strict();

export const updateWebhookSchema = z
  .object({
    endpoint: endpoint.optional(),
    events: events.optional(),
    status: z.enum(ENDPOINT_STATUSES).optional(),
  })
  .strict();

/** POST /webhooks/{id}/test: the type is optional (the endpoint's first); which types are allowed is the service's. */
export const testWebhookSchema = z.object({ type: z.string().min(1).max(64).optional() }).strict();

export const listQuerySchema = withPageRules(z.object({ ...pageQueryShape }).strict());

export type CreateWebhookInput = z.infer<typeof createWebhookSchema>;
export type UpdateWebhookInput = z.infer<typeof updateWebhookSchema>;
