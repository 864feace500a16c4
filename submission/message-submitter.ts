import type { Services } from '../app/services.js';
import { hasScope, type Caller } from '../core/platform/auth/caller.js';
import type { RequestRecord } from '../core/platform/request-logs/request-log.service.js';
import { sendEmailSchema } from '../core/sending/emails/email.schemas.js';
import { hasEightBitHeaders, submittedMessageToSendInput } from '../core/sending/emails/submitted-message.js';
import type { Clock } from '../lib/clock.js';
import {
  AppError,
  InvalidPermissionError,
  RateLimitExceededError,
  UnprocessableValidationError,
} from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import type { Logger } from '../lib/logger.js';
import { parseInput } from '../lib/validation.js';

/** One message as the SMTP session delivered it. */
export type SubmittedMessage = { token: string; client: string; recipients: string[]; smtpUtf8: boolean; raw: Buffer };

/** How a submission appears in the team's request log: the send it is, by SMTP. */
const ENDPOINT = '/emails';
const METHOD = 'SMTP';

/**
 * What the API pipeline does for POST /emails, for a message submitted over SMTP: the key is
 * authenticated again for every message (a revoked key stops at its next message, as the spec
 * requires of the API), the team's rate limit is taken at MAIL FROM, the message becomes the
 * body POST /emails takes and goes through the same schema and the same acceptance, and the
 * request log entry commits in the same unit of work as the email. Refusals are AppErrors, the
 * server maps them to SMTP replies; each is logged as the API logs its refusals.
 */
export class MessageSubmitter {
  constructor(private readonly deps: { services: Services; clock: Clock; logger: Logger }) {}

  async authenticate(token: string): Promise<Caller> {
    const caller = await this.deps.services.apiKeys.authenticate(token);
    // An OAuth access token authenticates too: it sends only with emails:send, as POST /emails asks.
    if (!hasScope(caller, 'emails:send'))
      throw new InvalidPermissionError('This credential lacks the scope emails:send');
    return caller;
  }

  /** The team's rate limit, at MAIL FROM: one message is one request. */
  async admit(token: string, client: string): Promise<void> {
    const startedAt = this.deps.clock.now();
    const started = performance.now();
    const caller = await this.authenticate(token);
    const rate = await this.deps.services.rateLimiter.take({ teamId: caller.team.id });
    if (rate.allowed) return;
    const err = new RateLimitExceededError(
      `Too many requests: the limit is shared by all keys of the team; retry in ${rate.retryAfterSeconds} s`,
    );
    if (this.deps.services.requestLogs.shouldLogRateLimited(caller.apiKey.id, Date.now())) {
      await this.logRefusal(
        this.record(caller, client, startedAt, started, undefined, err.statusCode, err.toBody(), null),
      );
    }
    throw err;
  }

  /** Accepts the message durably and returns the email's id, or throws the refusal. */
  async submit(message: SubmittedMessage): Promise<string> {
    const startedAt = this.deps.clock.now();
    const started = performance.now();
    const caller = await this.authenticate(message.token);
    let body: unknown;
    try {
      if (!message.smtpUtf8 && hasEightBitHeaders(message.raw)) {
        throw new UnprocessableValidationError(
          'The message has 8-bit bytes in its headers; encode them (RFC 2047) or submit with SMTPUTF8',
          { errors: [{ path: 'headers', message: 'not 7-bit' }] },
        );
      }
      body = await submittedMessageToSendInput(message.raw, message.recipients);
      const input = parseInput(sendEmailSchema, body, 'body');
      const { services } = this.deps;
      const unit = services.units.begin();
      const email = await services.emailAcceptance.accept(caller, input, unit);
      services.requestLogs.writeInto(
        unit,
        this.record(caller, message.client, startedAt, started, body, 200, { id: email.id }, email.id),
      );
      await unit.commit();
      return email.id;
    } catch (err) {
      const status = err instanceof AppError ? err.statusCode : 500;
      const answer =
        err instanceof AppError
          ? err.toBody()
          : { statusCode: 500, name: 'application_error', message: 'An unexpected error occurred' };
      await this.logRefusal(this.record(caller, message.client, startedAt, started, body, status, answer, null));
      throw err;
    }
  }

  private record(
    caller: Caller,
    client: string,
    startedAt: Date,
    started: number,
    body: unknown,
    status: number,
    response: unknown,
    emailId: string | null,
  ): RequestRecord {
    return {
      teamId: caller.team.id,
      apiKeyId: caller.apiKey.id,
      startedAt,
      endpoint: ENDPOINT,
      method: METHOD,
      responseStatus: status,
      userAgent: `smtp-submission (${client})`,
      requestId: newId(),
      latencyMs: Math.round(performance.now() - started),
      requestBody: body,
      responseBody: response,
      emailId,
    };
  }

  private async logRefusal(record: RequestRecord): Promise<void> {
    await this.deps.services.requestLogs
      .record(record)
      .catch((err: unknown) => this.deps.logger.error({ err }, 'could not record a submission in the request log'));
  }
}
