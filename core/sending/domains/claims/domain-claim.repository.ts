import type { Knex } from 'knex';
import { readNullableTimestamp, readTimestamp } from '../../../../db/dialect.js';
import type { Region } from '../../../platform/teams/team.types.js';
import {
  RUNNING_CLAIM_STATUSES,
  type BlockedReason,
  type ClaimStatus,
  type DomainClaim,
} from './domain-claim.types.js';

type Row = Record<string, unknown>;

function toClaim(row: Row): DomainClaim {
  return {
    id: String(row.id),
    teamId: String(row.team_id),
    domainId: row.domain_id === null || row.domain_id === undefined ? null : String(row.domain_id),
    name: String(row.name),
    region: row.region as Region,
    status: row.status as ClaimStatus,
    blockedReason: (row.blocked_reason ?? null) as BlockedReason | null,
    failureReason: (row.failure_reason ?? null) as string | null,
    token: String(row.token),
    createdAt: readTimestamp(row.created_at),
    updatedAt: readTimestamp(row.updated_at),
    expiresAt: readTimestamp(row.expires_at),
    verifyRequestedAt: readNullableTimestamp(row.verify_requested_at),
    verifiedAt: readNullableTimestamp(row.verified_at),
    completedAt: readNullableTimestamp(row.completed_at),
    nextCheckAt: readNullableTimestamp(row.next_check_at),
    checkAttempts: Number(row.check_attempts ?? 0),
  };
}

const COLUMNS: Array<[keyof DomainClaim, string]> = [
  ['id', 'id'],
  ['teamId', 'team_id'],
  ['domainId', 'domain_id'],
  ['name', 'name'],
  ['region', 'region'],
  ['status', 'status'],
  ['blockedReason', 'blocked_reason'],
  ['failureReason', 'failure_reason'],
  ['token', 'token'],
  ['createdAt', 'created_at'],
  ['updatedAt', 'updated_at'],
  ['expiresAt', 'expires_at'],
  ['verifyRequestedAt', 'verify_requested_at'],
  ['verifiedAt', 'verified_at'],
  ['completedAt', 'completed_at'],
  ['nextCheckAt', 'next_check_at'],
  ['checkAttempts', 'check_attempts'],
];

function toRow(claim: Partial<DomainClaim>): Row {
  const row: Row = {};
  for (const [key, column] of COLUMNS) if (claim[key] !== undefined) row[column] = claim[key];
  return row;
}

/** Thin knex store of domain_claims; callers pass a transaction when rows must commit together. */
export class DomainClaimRepository {
  constructor(private readonly knex: Knex) {}

  async insert(claim: DomainClaim): Promise<void> {
    await this.knex('domain_claims').insert(toRow(claim));
  }

  async update(id: string, changes: Partial<DomainClaim>): Promise<void> {
    await this.knex('domain_claims').where({ id }).update(toRow(changes));
  }

  /** Updates only while the claim still has `from` as its status; false when it moved meanwhile. */
  async updateFrom(id: string, from: ClaimStatus, changes: Partial<DomainClaim>): Promise<boolean> {
    return (await this.knex('domain_claims').where({ id, status: from }).update(toRow(changes))) === 1;
  }

  /** The latest claim made through this placeholder domain (ids are time-ordered v7). */
  async latestForDomain(domainId: string): Promise<DomainClaim | undefined> {
    const row = (await this.knex('domain_claims').where({ domain_id: domainId }).orderBy('id', 'desc').first()) as
      Row | undefined;
    return row ? toClaim(row) : undefined;
  }

  async findById(id: string): Promise<DomainClaim | undefined> {
    const row = (await this.knex('domain_claims').where({ id }).first()) as Row | undefined;
    return row ? toClaim(row) : undefined;
  }

  /** Running claims on a name, by any team. */
  async runningForName(name: string): Promise<DomainClaim[]> {
    const rows = (await this.knex('domain_claims')
      .where({ name })
      .whereIn('status', RUNNING_CLAIM_STATUSES as ClaimStatus[])
      .orderBy('id')) as Row[];
    return rows.map(toClaim);
  }

  /** Running claims whose check is due, or whose time ran out (the round expires those). */
  async due(now: Date, limit: number): Promise<DomainClaim[]> {
    const rows = (await this.knex('domain_claims')
      .whereIn('status', RUNNING_CLAIM_STATUSES as ClaimStatus[])
      .where((q) => q.where('next_check_at', '<=', now).orWhere('expires_at', '<=', now))
      .orderBy('id')
      .limit(limit)) as Row[];
    return rows.map(toClaim);
  }
}
