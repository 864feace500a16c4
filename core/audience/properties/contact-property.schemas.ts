import { z } from 'zod';
import { pageQueryShape, withPageRules } from '../../shared/pagination/list-query.js';
import { MAX_PROPERTY_STRING, PROPERTY_TYPES } from './contact-property.types.js';

const fallback = z.union([z.string().max(MAX_PROPERTY_STRING), z.number().finite()]).nullable();

export const createPropertySchema = z
  .object({
    key: z
      .string()
      .min(1, 'must not be empty')
      .max(50, 'must be at most 50 characters')
      .regex(/^[A-Za-z0-9_]+$/, 'letters, digits and underscores only'),
    type: z.enum(PROPERTY_TYPES),
    fallback_value: fallback.optional(),
  })
  .strict();

/**
 * Only the fallback changes. key and type are accepted in the shape (the SDK may send them) so
 * the service can answer that they are fixed with a 422 invalid_parameter naming them.
 */
export const updatePropertySchema = z
  .object({ fallback_value: fallback.optional(), key: z.unknown().optional(), type: z.unknown().optional() })
  .strict();

export const listPropertiesQuerySchema = withPageRules(z.object({ ...pageQueryShape }).strict());

export type CreatePropertyInput = z.infer<typeof createPropertySchema>;
export type UpdatePropertyInput = z.infer<typeof updatePropertySchema>;
