import { z } from 'zod';
import { pageQueryShape, withPageRules } from '../../shared/pagination/list-query.js';

const name = z
  .string()
  .transform((value) => value.trim())
  .pipe(z.string().min(1, 'must not be blank').max(200, 'must be at most 200 characters'));

/** The filter is checked by the service against the team's properties and topics. */
export const createSegmentSchema = z
  .object({ name, filter: z.unknown().optional(), audience_id: z.string().optional() })
  .strict();

/** Only the name changes; a filter in the body is the spec's 422 invalid_parameter, from the service. */
export const updateSegmentSchema = z.object({ name, filter: z.unknown().optional() }).strict();

export const previewSegmentSchema = z.object({ filter: z.unknown() }).strict();

export const listSegmentsQuerySchema = withPageRules(z.object({ ...pageQueryShape }).strict());

export type CreateSegmentInput = z.infer<typeof createSegmentSchema>;
export type UpdateSegmentInput = z.infer<typeof updateSegmentSchema>;
