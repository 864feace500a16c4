import type { Region } from '../../../platform/teams/team.types.js';

/** The statuses the `resend` SDK knows (DomainClaimStatus); the rules are in domain-claim.rules.ts. */
export const CLAIM_STATUSES = [
  'pending',
  'verified',
  'completed',
  'blocked',
  'expired',
  'superseded',
  'canceled',
  'failed',
] as const;
export type ClaimStatus = (typeof CLAIM_STATUSES)[number];

/** A claim still able to complete: at most one per name at any time (a new one supersedes it). */
export const RUNNING_CLAIM_STATUSES: readonly ClaimStatus[] = ['pending', 'verified', 'blocked'];

export const BLOCKED_REASONS = ['grace_period', 'recent_owner_activity', 'pending_scheduled_emails'] as const;
export type BlockedReason = (typeof BLOCKED_REASONS)[number];

export type DomainClaim = {
  id: string;
  teamId: string;
  /** The claimer's placeholder domain (null only if a row outlived it). */
  domainId: string | null;
  name: string;
  region: Region;
  status: ClaimStatus;
  blockedReason: BlockedReason | null;
  failureReason: string | null;
  /** The TXT value to publish at the name. */
  token: string;
  createdAt: Date;
  updatedAt: Date;
  expiresAt: Date;
  verifyRequestedAt: Date | null;
  verifiedAt: Date | null;
  completedAt: Date | null;
  nextCheckAt: Date | null;
  checkAttempts: number;
};

export const isRunning = (claim: DomainClaim): boolean => RUNNING_CLAIM_STATUSES.includes(claim.status);
