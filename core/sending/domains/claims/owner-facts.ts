import type { Knex } from 'knex';
import { readNullableTimestamp } from '../../../../db/dialect.js';
import type { Domain } from '../domain.types.js';
import type { OwnerFacts } from './domain-claim.rules.js';

/**
 * Reads what the claim rules need about the current owner's domain. It reads the emails table
 * directly (two aggregate queries on its domain_id) rather than through the emails feature,
 * which has no such question to answer for anyone else.
 */
export async function ownerFacts(knex: Knex, owner: Domain): Promise<OwnerFacts> {
  const [last] = (await knex('emails').where({ domain_id: owner.id }).max({ at: 'created_at' })) as Array<{
    at: unknown;
  }>;
  const [scheduled] = (await knex('emails')
    .where({ domain_id: owner.id, last_event: 'scheduled' })
    .count({ n: '*' })) as Array<{ n: number | string }>;
  return {
    verifiedAt: owner.verifiedAt,
    lastEmailAt: readNullableTimestamp(last?.at),
    scheduledEmails: Number(scheduled?.n ?? 0),
  };
}
