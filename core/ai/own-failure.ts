import type { LoggedEvent } from '../events/log/event.types.js';
import type { DeliveryDetail } from '../sending/deliveries/email-delivery-log.js';

/** email.failed's reason when the team deleted the sending domain: the team's doing, not ours. */
export const DOMAIN_DELETED_REASON = 'The sending domain was deleted';
/** The MTA's note on the attempts it makes up for the mailbox simulator (a remote server's stand-in). */
const SIMULATOR_NOTE = '* mailbox simulator';

/**
 * Whether an email failed on this appliance's own mail servers (spec: such an email's diagnosis
 * is `cause: 'provider_failure'`, at no cost). The MTA records those failures as attempts that
 * never left from an egress address (no address of the pool was usable, the stored message could
 * not be read) and as email.failed without a remote reply (an operator's purge of the queue). So:
 * nothing was delivered, no attempt ever left from one of our addresses (none reached, or tried
 * to reach, a recipient's server), and there is at least one such local failure. An email the
 * team's own action failed (its sending domain deleted) is not one. Answers what went wrong, for
 * the diagnosis, or null.
 */
export function ownFailure(events: LoggedEvent[], deliveries: DeliveryDetail[]): string[] | null {
  if (deliveries.some(({ delivery }) => delivery.state === 'delivered')) return null;
  if (events.some((event) => event.type === 'email.delivered')) return null;
  const failedReasons = events
    .filter((event) => event.type === 'email.failed')
    .map((event) => String((event.data.failed as { reason?: unknown } | undefined)?.reason ?? 'failed'));
  if (failedReasons.includes(DOMAIN_DELETED_REASON)) return null;
  const attempts = deliveries.flatMap(({ attempts }) => attempts);
  if (attempts.some((attempt) => attempt.egressIp)) return null;
  if (attempts.some((attempt) => attempt.transcript?.startsWith(SIMULATOR_NOTE))) return null;
  const local = attempts.filter((attempt) => attempt.outcome !== 'delivered');
  if (local.length === 0 && failedReasons.length === 0) return null;
  const reasons = [...local.flatMap((attempt) => (attempt.reply ? [attempt.reply] : [])), ...failedReasons];
  return reasons.length > 0 ? [...new Set(reasons)] : ['the message could not be sent'];
}
