import { ServiceUnavailableError, UnprocessableValidationError } from '../../../../lib/errors.js';
import type { Logger } from '../../../../lib/logger.js';

type StripeErrorLike = { type?: string; code?: string; message?: string; statusCode?: number; requestId?: string };

/** Errors the SDK raises when Stripe could not answer: the same call may work later. */
const UNREACHABLE = new Set(['StripeConnectionError', 'StripeAPIError', 'StripeRateLimitError', 'RateLimitError']);

/**
 * Runs one call to Stripe and turns its failures into the spec's refusals: Stripe unreachable
 * or failing on its side is `503 service_unavailable` (retry with backoff; nothing was stored);
 * a card refused is `422 validation_error`; anything else Stripe refuses (a price id that does
 * not exist, a key without the permission) is the operator's configuration, logged for them and
 * answered 503: the appliance cannot charge as configured, and the caller can do nothing about it.
 */
export async function callStripe<T>(logger: Logger, what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw stripeRefusal(logger, what, err);
  }
}

export function stripeRefusal(logger: Logger, what: string, err: unknown): Error {
  const error = err as StripeErrorLike;
  if (!error?.type) return err as Error;
  const context = { what, type: error.type, code: error.code, status: error.statusCode, requestId: error.requestId };
  if (UNREACHABLE.has(error.type)) {
    logger.warn(context, 'Stripe could not be reached');
    return new ServiceUnavailableError('The payment provider could not be reached; retry with backoff');
  }
  if (error.type === 'StripeCardError')
    return new UnprocessableValidationError(`The payment provider refused the payment: ${error.message ?? ''}`.trim());
  logger.error({ ...context, message: error.message }, 'Stripe refused a request (check billing.stripe)');
  return new ServiceUnavailableError(
    `Billing cannot complete this now: the payment provider refused the request (${error.code ?? error.type}); the operator has been told`,
  );
}

/** Whether a failure means Stripe already holds what was sent (a meter event with this identifier). */
export function isDuplicateMeterEvent(err: unknown): boolean {
  const error = err as StripeErrorLike;
  if (error?.type !== 'StripeInvalidRequestError') return false;
  if (error.code === 'resource_already_exists' || error.code === 'duplicate_meter_event') return true;
  return /identifier/i.test(error.message ?? '') && /(already|duplicate|exists)/i.test(error.message ?? '');
}
