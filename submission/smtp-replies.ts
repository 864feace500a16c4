import { AppError, MisleadingDisplayNameError } from '../lib/errors.js';
import { isDependencyDown } from '../db/errors.js';

/** An SMTP reply: the code and the text after it (which starts with its enhanced status code). */
export type SmtpReply = { code: number; message: string };

/** Line breaks and other control characters never reach a reply line. */
const oneLine = (text: string) => text.replace(/[\u0000-\u001f\u007f]+/g, ' ').slice(0, 400);

/**
 * The SMTP answer to what POST /emails would have answered with an error body: credentials
 * 535, rules about the sender or the key 550 5.7.1, a message the API would refuse 550 5.6.0,
 * limits that pass with time 452 (retry later), and anything that is the appliance's own
 * failure 451 4.3.0, never a permanent refusal.
 */
export function smtpReplyFor(err: unknown): SmtpReply {
  if (!(err instanceof AppError)) {
    return {
      code: 451,
      message: `4.3.0 ${isDependencyDown(err) ? 'A dependency is unavailable' : 'Local error in processing'}; try again later`,
    };
  }
  const text = oneLine(err.message);
  switch (err.errorName) {
    case 'missing_api_key':
    case 'invalid_api_key':
    case 'restricted_api_key':
    case 'suspended_api_key':
      return { code: 535, message: `5.7.8 Authentication failed: ${text}` };
    case 'rate_limit_exceeded':
    case 'daily_quota_exceeded':
      return { code: 452, message: `4.7.1 ${text}; try again later` };
    case 'monthly_quota_exceeded':
    case 'marketing_quota_exceeded':
    case 'email_above_quota':
      return { code: 552, message: `5.7.1 ${text}` };
    case 'invalid_permission':
      return { code: 550, message: `5.7.1 ${text}` };
    case 'validation_error':
      // A display name showing another address (phishing) is a policy refusal, not a malformed message.
      if (err instanceof MisleadingDisplayNameError) return { code: 550, message: `5.7.1 ${text}` };
      break;
    default:
      break;
  }
  if (err.statusCode === 403) return { code: 550, message: `5.7.1 ${text}` };
  if (err.statusCode >= 500) return { code: 451, message: `4.3.0 ${text}` };
  return { code: 550, message: `5.6.0 ${text}` };
}

/** An Error carrying the reply, as smtp-server's callbacks take it. */
export function replyError(reply: SmtpReply): Error & { responseCode: number } {
  return Object.assign(new Error(reply.message), { responseCode: reply.code });
}
