import { z } from 'zod';
import { isUuid } from '../lib/ids.js';

/** Shapes shared by route declarations (path ids, common responses) for validation and OpenAPI. */
export function uuidParam(description: string) {
  return z
    .string()
    .refine(isUuid, 'must be a UUID')
    .transform((value) => value.toLowerCase())
    .describe(description);
}

export const errorBodySchema = z.object({
  statusCode: z.number().int(),
  name: z.string(),
  message: z.string(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  code: z.number().int().optional(),
  claimable: z.boolean().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
});

export function listSchema<T extends z.ZodType>(item: T) {
  return z.object({ object: z.literal('list'), has_more: z.boolean(), data: z.array(item) });
}

export const deletedSchema = (object: string) =>
  z.object({ object: z.literal(object), id: z.string(), deleted: z.literal(true) });
