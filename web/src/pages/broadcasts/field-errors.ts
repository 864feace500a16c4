import { ApiError } from '../../api/client';

/** The API's message for one field of a refused write, shown on that field. */
export const errorFor = (error: unknown, field: string) =>
  error instanceof ApiError ? (error.forField(field) ?? null) : null;
