/**
 * The error vocabulary of the spec (api-1, "Errors"). Every refusal the appliance makes is one
 * of these classes; the API turns them into the spec's error body. Core code throws them, so
 * the same refusal reads the same from the REST API, the SMTP submission port and the CLI.
 */

export type ErrorDetails = {
  recipient?: string;
  region?: string;
  allowed?: string[];
  next?: string;
  reason?: string;
  label?: string;
  found?: { type: string; value: string };
  suggestion?: string;
  /** DNS UPDATE refusals: the server's RCODE (REFUSED, NOTAUTH...), the TSIG error and the zone. */
  rcode?: string;
  tsig_error?: string;
  zone?: string;
  [key: string]: unknown;
};

export type FieldError = { path: string; message: string };

export type ErrorBody = {
  statusCode: number;
  name: string;
  message: string;
  errors?: FieldError[];
  code?: number;
  claimable?: boolean;
  details?: ErrorDetails;
};

export type AppErrorOptions = {
  errors?: FieldError[];
  code?: number;
  claimable?: boolean;
  details?: ErrorDetails;
  headers?: Record<string, string>;
};

export class AppError extends Error {
  readonly statusCode: number;
  readonly errorName: string;
  readonly errors?: FieldError[];
  readonly code?: number;
  readonly claimable?: boolean;
  readonly details?: ErrorDetails;
  /** Extra response headers the refusal needs (Allow on 405, retry-after on 429). */
  readonly headers?: Record<string, string>;

  constructor(statusCode: number, errorName: string, message: string, options: AppErrorOptions = {}) {
    super(message);
    this.statusCode = statusCode;
    this.errorName = errorName;
    this.errors = options.errors;
    this.code = options.code;
    this.claimable = options.claimable;
    this.details = options.details;
    this.headers = options.headers;
  }

  toBody(): ErrorBody {
    const body: ErrorBody = { statusCode: this.statusCode, name: this.errorName, message: this.message };
    if (this.errors && this.errors.length > 0) body.errors = this.errors;
    if (this.code !== undefined) body.code = this.code;
    if (this.claimable !== undefined) body.claimable = this.claimable;
    if (this.details !== undefined) body.details = this.details;
    return body;
  }
}

const define = (statusCode: number, errorName: string) =>
  class extends AppError {
    constructor(message: string, options?: AppErrorOptions) {
      super(statusCode, errorName, message, options);
    }
  };

export class InvalidIdempotencyKeyError extends define(400, 'invalid_idempotency_key') {}
/** 400: field-level validation of a body, query or header failed. */
export class ValidationError extends define(400, 'validation_error') {}
export class MissingApiKeyError extends define(401, 'missing_api_key') {}
export class InvalidApiKeyError extends define(401, 'invalid_api_key') {}
/** 401: a sending_access key on a non-sending route. */
export class RestrictedApiKeyError extends define(401, 'restricted_api_key') {}
export class EmailAboveQuotaError extends define(403, 'email_above_quota') {}
export class InvalidPermissionError extends define(403, 'invalid_permission') {}
/** 403: the key was revoked. */
export class RevokedApiKeyError extends define(403, 'restricted_api_key') {}
export class SuspendedApiKeyError extends define(403, 'suspended_api_key') {}
/** 403: policy refusals (unverified domain, sandbox, missing User-Agent with code 1010). */
export class ForbiddenValidationError extends define(403, 'validation_error') {}
export class NotFoundError extends define(404, 'not_found') {}
export class MethodNotAllowedError extends define(405, 'method_not_allowed') {}
export class ConcurrentIdempotentRequestsError extends define(409, 'concurrent_idempotent_requests') {}
export class InvalidIdempotentRequestError extends define(409, 'invalid_idempotent_request') {}
export class ResourceLockedError extends define(409, 'resource_locked') {}
export class ReceivingMxInUseError extends define(409, 'receiving_mx_in_use') {}
/** 422: well-formed, but the resource refuses it (plan limit, rule of the resource). */
export class UnprocessableValidationError extends define(422, 'validation_error') {}
/**
 * 422 validation_error for a display name showing another address than its mailbox's own
 * (`"ceo@bank.example" <hello@our-domain>`, a phishing pattern). The spec's name, its own class
 * so SMTP submission can answer it as the policy refusal it is (550 5.7.1, not 5.6.0).
 */
export class MisleadingDisplayNameError extends UnprocessableValidationError {}
export class InvalidAttachmentError extends define(422, 'invalid_attachment') {}
export class InvalidParameterError extends define(422, 'invalid_parameter') {}
export class MissingRequiredFieldError extends define(422, 'missing_required_field') {}
export class MissingRequiredParameterError extends define(422, 'missing_required_parameter') {}
export class DailyQuotaExceededError extends define(429, 'daily_quota_exceeded') {}
export class MonthlyQuotaExceededError extends define(429, 'monthly_quota_exceeded') {}
export class MarketingQuotaExceededError extends define(429, 'marketing_quota_exceeded') {}
export class RateLimitExceededError extends define(429, 'rate_limit_exceeded') {}
export class ApplicationError extends define(500, 'application_error') {}
export class NotImplementedError extends define(501, 'not_implemented') {}
export class ServiceUnavailableError extends define(503, 'service_unavailable') {}

/** Raised by configuration loading; start-up prints it and exits non-zero. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}
