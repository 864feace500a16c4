import { z } from 'zod';
import { isUuid } from '../../../lib/ids.js';
import { dateOrInstantParam, endNotBeforeStart } from '../../shared/pagination/date-filters.js';
import { pageQueryShape, searchParam, withPageRules } from '../../shared/pagination/list-query.js';
import { isEmailAddress } from '../../shared/addresses/email-address.js';
import { SUPPRESSION_ORIGINS } from './suppression.types.js';

const address = z
  .string()
  .transform((value) => value.trim())
  .refine(isEmailAddress, 'must be an e-mail address');

export const addSuppressionSchema = z.object({ email: address }).strict();

export const batchAddSchema = z
  .object({
    emails: z.array(address).min(1, 'must list at least one address').max(100, 'at most 100 addresses per request'),
  })
  .strict();

/** emails or ids, never both or neither: that rule is the service's (a 422, not a 400). */
export const batchRemoveSchema = z
  .object({
    emails: z.array(address).min(1).max(100, 'at most 100 addresses per request').optional(),
    ids: z
      .array(z.string().refine(isUuid, 'must be a suppression id'))
      .min(1)
      .max(100, 'at most 100 ids per request')
      .optional(),
  })
  .strict();

export const listSuppressionsQuerySchema = withPageRules(
  z
    .object({
      ...pageQueryShape,
      origin: z.enum(SUPPRESSION_ORIGINS).optional(),
      search: searchParam(200).optional(),
      // One address, exactly (case-insensitive, as suppressions match): "is this address suppressed?"
      email: address.optional(),
      // The start of an address, as a person types it into a search box.
      q: searchParam(320)
        .transform((value) => value.trim())
        .optional(),
      start_date: dateOrInstantParam('start').optional(),
      end_date: dateOrInstantParam('end').optional(),
    })
    .strict(),
).superRefine(endNotBeforeStart);

export type ListSuppressionsQuery = z.infer<typeof listSuppressionsQuerySchema>;
export type BatchRemoveInput = z.infer<typeof batchRemoveSchema>;
