import type { Context, Middleware } from 'koa';
import type { Services } from '../../app/services.js';
import { isDependencyDown } from '../../db/errors.js';
import {
  AppError,
  ApplicationError,
  MethodNotAllowedError,
  NotFoundError,
  ServiceUnavailableError,
  ValidationError,
} from '../../lib/errors.js';
import type { Logger } from '../../lib/logger.js';
import { oversizedBodyHeaders } from '../request-body.js';

/** Where payment providers deliver their events: /billing-webhooks/<billing.provider>. */
export const BILLING_WEBHOOKS_PREFIX = '/billing-webhooks/';
/** Larger than any event a provider sends (Stripe's are a few kB, a big invoice some hundred). */
export const MAX_WEBHOOK_BYTES = 1024 * 1024;

/**
 * Deliveries of the payment provider's webhooks, answered before, and outside, the API pipeline:
 * the provider sends no key (the signature over the raw body is the credential, checked by the
 * provider's adapter), so neither base path, the User-Agent rule nor the rate limit applies.
 * POST only; the body is read raw (its bytes are what is signed) up to MAX_WEBHOOK_BYTES.
 * Answers are JSON: 200 once applied (or already applied, or ignored), 400 for a signature that
 * does not verify, 503 (or 500) when the event could not be applied, so the provider retries.
 */
export function billingWebhooksMiddleware(deps: { services: Services; logger: Logger }): Middleware {
  return async (ctx, next) => {
    if (!ctx.path.startsWith(BILLING_WEBHOOKS_PREFIX)) return next();
    let status: number;
    let body: unknown;
    let headers: Record<string, string> = {};
    try {
      const provider = ctx.path.slice(BILLING_WEBHOOKS_PREFIX.length);
      if (!/^[a-z][a-z0-9-]{0,31}$/.test(provider)) throw new NotFoundError('Route not found');
      if (ctx.method !== 'POST')
        throw new MethodNotAllowedError(`Method ${ctx.method} is not allowed on this path`, {
          headers: { allow: 'POST' },
        });
      const raw = await readRaw(ctx, MAX_WEBHOOK_BYTES);
      ({ status, body } = await deps.services.billingWebhooks.handle(provider, raw, ctx.headers));
    } catch (err) {
      const error = refusal(err, deps.logger, ctx.path);
      status = error.statusCode;
      headers = error.headers ?? {};
      body = error.toBody();
    }
    for (const [name, value] of Object.entries(headers)) ctx.set(name, value);
    ctx.set('cache-control', 'no-store');
    ctx.status = status;
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = JSON.stringify(body);
  };
}

function refusal(err: unknown, logger: Logger, path: string): AppError {
  if (err instanceof AppError) return err;
  logger.error({ err, path }, 'billing webhook could not be applied');
  if (isDependencyDown(err)) return new ServiceUnavailableError('A dependency is unavailable; deliver again later');
  return new ApplicationError('The event could not be applied; deliver again later');
}

/** The body's exact bytes (the signature covers them), refused past `limit` without reading the rest. */
async function readRaw(ctx: Context, limit: number): Promise<Buffer> {
  const tooLarge = () =>
    new ValidationError(`Request body is larger than ${limit} bytes`, { headers: oversizedBodyHeaders() });
  if (Number(ctx.get('content-length') || 0) > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) throw tooLarge();
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}
