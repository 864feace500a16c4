/**
 * Stripe's error answers: `{ error: { type, message, code?, param?, doc_url? } }` with the HTTP
 * status Stripe uses. The SDK turns the status and `type` into its error classes
 * (StripeInvalidRequestError, StripeAuthenticationError, StripeCardError, StripeAPIError...).
 */
export type StripeErrorBody = {
  type: 'invalid_request_error' | 'api_error' | 'card_error' | 'idempotency_error' | 'rate_limit_error' | string;
  message: string;
  code?: string;
  decline_code?: string;
  param?: string;
  doc_url?: string;
};

export class StripeDoubleError extends Error {
  constructor(
    readonly status: number,
    readonly body: StripeErrorBody,
  ) {
    super(body.message);
  }

  toJSON(): { error: StripeErrorBody } {
    return { error: this.body };
  }
}

function docUrl(code: string): string {
  return `https://stripe.com/docs/error-codes/${code.replace(/_/g, '-')}`;
}

/** `No such customer: 'cus_x'` (404 on a path id, 400 when the id came in a parameter). */
export function noSuch(kind: string, id: string, param = 'id', status = param === 'id' ? 404 : 400): StripeDoubleError {
  return new StripeDoubleError(status, {
    type: 'invalid_request_error',
    code: 'resource_missing',
    doc_url: docUrl('resource_missing'),
    message: `No such ${kind}: '${id}'`,
    param,
  });
}

export function invalidRequest(message: string, param?: string, code?: string): StripeDoubleError {
  return new StripeDoubleError(400, {
    type: 'invalid_request_error',
    message,
    ...(code ? { code, doc_url: docUrl(code) } : {}),
    ...(param ? { param } : {}),
  });
}

export function missingParam(param: string): StripeDoubleError {
  return invalidRequest(`Missing required param: ${param}.`, param, 'parameter_missing');
}

/** Stripe refuses parameters it does not know; the double also refuses the ones it does not model. */
export function unknownParam(param: string): StripeDoubleError {
  return invalidRequest(
    `Received unknown parameter: ${param} (the Stripe double answers only the parameters it models)`,
    param,
    'parameter_unknown',
  );
}

/** Stripe's answer to a path it has no route for (no `code`, as Stripe sends it). */
export function unrecognizedUrl(method: string, path: string): StripeDoubleError {
  return new StripeDoubleError(404, {
    type: 'invalid_request_error',
    message: `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
  });
}

export function authenticationFailed(sentKey: string | undefined): StripeDoubleError {
  return new StripeDoubleError(401, {
    type: 'invalid_request_error',
    message:
      sentKey === undefined
        ? "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/."
        : `Invalid API Key provided: ${sentKey.slice(0, 8)}${'*'.repeat(Math.max(0, sentKey.length - 12))}${sentKey.slice(-4)}`,
  });
}

export function idempotencyMismatch(key: string): StripeDoubleError {
  return new StripeDoubleError(400, {
    type: 'idempotency_error',
    message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
  });
}
