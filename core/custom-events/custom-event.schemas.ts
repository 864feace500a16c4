import { z } from 'zod';
import { pageQueryShape, searchParam, withPageRules } from '../shared/pagination/list-query.js';
import { MAX_SCHEMA_KEY_LENGTH, MAX_SCHEMA_KEYS, SCHEMA_TYPES, type EventSchema } from './custom-event.types.js';
import { nameProblem } from './event-name.js';

/**
 * Input shapes of the custom event routes. A value of the wrong JSON type is a 400
 * validation_error like everywhere else; a well-formed value the rules refuse (a name breaking
 * the name rules or carrying the reserved `svc:` prefix, a schema over 50 keys or declaring an
 * unknown type) is a 422 validation_error: the spec answers the reserved prefix so, and the
 * other rules of the same field answer alike.
 */
const refused = { unprocessable: true };

const name = z
  .string()
  .describe(
    'Lower-case letters, digits, ".", "_" and "-"; starts with a letter; at most 100 characters; not UUID-shaped; the prefix svc: is reserved',
  )
  .superRefine((value, ctx) => {
    const problem = nameProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, params: refused });
  });

const types = new Set<string>(SCHEMA_TYPES);

/** A flat map of payload key to type, or null for none. Replaced whole on update, never merged. */
const schema = z
  .record(z.string(), z.unknown().meta({ enum: [...SCHEMA_TYPES] }))
  .nullable()
  .describe('Flat map of payload key to type (string, number, boolean, date), at most 50 keys; null for none')
  .superRefine((value, ctx) => {
    if (value === null) return;
    const entries = Object.entries(value);
    if (entries.length > MAX_SCHEMA_KEYS)
      ctx.addIssue({
        code: 'custom',
        message: `must declare at most ${MAX_SCHEMA_KEYS} keys (${entries.length} given)`,
        params: refused,
      });
    for (const [key, type] of entries) {
      if (key.length === 0 || key.length > MAX_SCHEMA_KEY_LENGTH)
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `a key must be 1 to ${MAX_SCHEMA_KEY_LENGTH} characters`,
          params: refused,
        });
      else if (typeof type !== 'string' || !types.has(type))
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `must be one of ${SCHEMA_TYPES.join(', ')}`,
          params: refused,
        });
    }
  })
  .transform((value) => value as EventSchema | null);

export const createCustomEventSchema = z.object({ name, schema: schema.optional() }).strict();

/**
 * schema is required (null clears it). The name cannot change: it is accepted in the shape only
 * so that a body naming another name is the service's 422 rather than an unknown field.
 */
export const updateCustomEventSchema = z.object({ schema, name: z.unknown().optional() }).strict();

export const listCustomEventsQuerySchema = withPageRules(
  z.object({ ...pageQueryShape, search: searchParam(200).optional() }).strict(),
);

/**
 * POST /events/send. Exactly one of contact_id and email (null counts as absent), checked by the
 * service (422); the payload's size and its agreement with the definition's schema too.
 */
export const sendCustomEventSchema = z
  .object({
    event: z.string().min(1, 'must not be empty').describe('Name of a live event definition'),
    contact_id: z.string().nullable().optional().describe('Contact id (give this or email)'),
    email: z.string().nullable().optional().describe('Contact e-mail address (give this or contact_id)'),
    payload: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('Object, at most 16 KB of JSON; declared keys must match the schema'),
  })
  .strict();

export type CreateCustomEventInput = z.infer<typeof createCustomEventSchema>;
export type UpdateCustomEventInput = z.infer<typeof updateCustomEventSchema>;
export type ListCustomEventsQuery = z.infer<typeof listCustomEventsQuerySchema>;
export type SendCustomEventInput = z.infer<typeof sendCustomEventSchema>;
