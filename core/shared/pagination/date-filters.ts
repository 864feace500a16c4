import { z } from 'zod';

/**
 * Date range parameters of list routes. Logs take instants only (a date alone is refused);
 * other lists take a date (the whole day, inclusive at both ends) or an instant.
 */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const parses = (value: string) => !Number.isNaN(Date.parse(value));

export function instantParam() {
  return z
    .string()
    .refine(
      (value) => INSTANT.test(value) && parses(value),
      'must be an ISO 8601 instant with a time and zone, e.g. 2026-01-31T00:00:00Z',
    )
    .transform((value) => new Date(value));
}

export function dateOrInstantParam(edge: 'start' | 'end') {
  return z
    .string()
    .refine(
      (value) => (INSTANT.test(value) || DATE.test(value)) && parses(value),
      'must be an ISO 8601 date or instant',
    )
    .transform((value) => {
      if (!DATE.test(value)) return new Date(value);
      const dayStart = Date.parse(`${value}T00:00:00Z`);
      return new Date(edge === 'end' ? dayStart + 86_399_999 : dayStart);
    });
}

/** end_date before start_date is refused (422 invalid_parameter on a query). */
export function endNotBeforeStart(value: { start_date?: Date; end_date?: Date }, ctx: z.RefinementCtx): void {
  if (value.start_date && value.end_date && value.end_date < value.start_date) {
    ctx.addIssue({ code: 'custom', path: ['end_date'], message: 'end_date is before start_date' });
  }
}
