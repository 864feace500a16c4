import type { BlockedReason } from './domain-claim.types.js';

/**
 * The rules of a claim, as data and pure functions (the README section of issue 23 states them):
 * - a claim lives CLAIM_TTL_MS from creation; a pending or blocked claim past it is `expired`;
 * - the TXT record is looked for only after POST .../claim/verify, then with back-off;
 * - once the record is seen the claim is `verified`, and completes unless the current owner is
 *   protected by one of the blocked reasons below; a blocked claim is re-evaluated every
 *   BLOCKED_RECHECK_MS and completes when the block clears, or expires.
 */
const HOUR = 3_600_000;

/** How long a claim may wait for its TXT record (and for a block to clear). */
export const CLAIM_TTL_MS = 7 * 24 * HOUR;
/** A name verified this recently stays with its owner: a claim right after verification is more likely a race or a hijack than a lost domain. */
export const GRACE_PERIOD_MS = 48 * HOUR;
/** An owner that sent from the name this recently is still using it. */
export const OWNER_ACTIVITY_WINDOW_MS = 24 * HOUR;
/** How often a blocked claim is re-evaluated. */
export const BLOCKED_RECHECK_MS = 15 * 60_000;
/** A verified claim whose transfer failed this many rounds in a row ends as `failed`. */
export const MAX_TRANSFER_ATTEMPTS = 3;

/** What the rules read about the team that holds the name verified now. */
export type OwnerFacts = {
  /** When the owner's domain was (last) verified. */
  verifiedAt: Date | null;
  /** The newest email the owner accepted from that domain (any status). */
  lastEmailAt: Date | null;
  /** Emails of the owner from that domain still waiting for their scheduled time. */
  scheduledEmails: number;
};

/**
 * Why the claim may not complete now, or null. Scheduled emails come first: they are the one
 * block the owner can clear at once (cancel them), so naming it tells the owner what to do.
 */
export function blockedReasonOf(owner: OwnerFacts, now: Date): BlockedReason | null {
  if (owner.scheduledEmails > 0) return 'pending_scheduled_emails';
  if (owner.verifiedAt && now.getTime() - owner.verifiedAt.getTime() < GRACE_PERIOD_MS) return 'grace_period';
  if (owner.lastEmailAt && now.getTime() - owner.lastEmailAt.getTime() < OWNER_ACTIVITY_WINDOW_MS)
    return 'recent_owner_activity';
  return null;
}

/** The TXT value that proves control of the name for one claim. */
export const claimRecordValue = (token: string) => `mailroom-domain-verification=${token}`;

/** Whether a published TXT value is this claim's (spaces and case are not the operator's fault). */
export function txtMatches(published: string, token: string): boolean {
  const squash = (value: string) => value.replace(/\s+/g, '').toLowerCase();
  return squash(published) === squash(claimRecordValue(token));
}
