import { z } from 'zod';
import { isUuid } from '../../lib/ids.js';
import { pageQueryShape, searchParam, withPageRules } from '../pagination/list-query.js';
import { isEmailAddress } from './email-address.js';
import { SUPPRESSION_ORIGINS } from './suppression.types.js';

const address = z
  .string()
  .transform((value) => value.trim())
  .refine(isEmailAddress, 'must be an e-mail address');

export const addSuppressionSchema = z.object({ email: address }).strict();

export const batchAddSchema = z
  .object({ emails: z.array(address).min(1, 'must list at least one address').max(100, 'at most 100 addresses per request') })
  .strict();

/** emails or ids, never both or neither: that rule is the service's (a 422, not a 400). */
export const batchRemoveSchema = z
  .object({
    emails: z.array(address).min(1).max(100, 'at most 100 addresses per request').optional(),
    ids: z.array(z.string().refine(isUuid, 'must be a suppression id')).min(1).max(100, 'at most 100 ids per request').optional(),
  })
  .strict();

/** A date (the whole day, inclusive at both ends) or an instant. */
function dateBound(edge: 'start' | 'end') {
  return z
    .string()
    .refine((value) => /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/.test(value) && !Number.isNaN(Date.parse(value)), 'must be an ISO 8601 date or instant')
    .transform((value) => (value.length === 10 && edge === 'end' ? new Date(Date.parse(`${value}T00:00:00Z`) + 86_399_999) : new Date(value.length === 10 ? `${value}T00:00:00Z` : value)));
}

export const listSuppressionsQuerySchema = withPageRules(
  z
    .object({
      ...pageQueryShape,
      origin: z.enum(SUPPRESSION_ORIGINS).optional(),
      search: searchParam(200).optional(),
      start_date: dateBound('start').optional(),
      end_date: dateBound('end').optional(),
    })
    .strict(),
).superRefine((value, ctx) => {
  if (value.start_date && value.end_date && value.end_date < value.start_date) ctx.addIssue({ code: 'custom', path: ['end_date'], message: 'end_date is before start_date' });
});

export type ListSuppressionsQuery = z.infer<typeof listSuppressionsQuerySchema>;
export type BatchRemoveInput = z.infer<typeof batchRemoveSchema>;
