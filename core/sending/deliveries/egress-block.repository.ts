import type { Knex } from 'knex';
import { readNullableTimestamp } from '../../../db/dialect.js';
import { isUniqueViolation } from '../../../db/errors.js';

/** The destination of an operator's disable: every destination. */
export const ALL_DESTINATIONS = '*';
const DISABLED_UNTIL = new Date('9999-12-31T00:00:00Z');

/**
 * Strikes against an egress address at one destination. Each blocklisting-style rejection adds
 * one; at the threshold the address rests from that destination for a while (the rest of its
 * pool carries the mail), then starts afresh.
 */
export class EgressBlockRepository {
  constructor(private readonly knex: Knex) {}

  async strike(
    egressIp: string,
    destination: string,
    reply: string,
    threshold: number,
    restUntil: Date,
    now: Date,
  ): Promise<void> {
    const key = { egress_ip: egressIp, destination };
    for (let attempt = 0; attempt < 3; attempt++) {
      const row = (await this.knex('egress_blocks').where(key).first()) as
        { strikes: number; blocked_until: unknown } | undefined;
      if (!row) {
        try {
          await this.knex('egress_blocks').insert({
            ...key,
            strikes: 1,
            blocked_until: threshold <= 1 ? restUntil : null,
            last_reply: reply,
            updated_at: now,
          });
          return;
        } catch (err) {
          if (!isUniqueViolation(err)) throw err;
          continue;
        }
      }
      const expired = (readNullableTimestamp(row.blocked_until)?.getTime() ?? Infinity) <= now.getTime();
      const strikes = (expired ? 0 : Number(row.strikes)) + 1;
      await this.knex('egress_blocks')
        .where(key)
        .update({
          strikes,
          blocked_until: strikes >= threshold ? restUntil : null,
          last_reply: reply,
          updated_at: now,
        });
      return;
    }
  }

  /** Addresses resting from this destination now, and those the operator disabled everywhere. */
  async resting(destination: string, now: Date): Promise<Set<string>> {
    const rows = (await this.knex('egress_blocks')
      .select('egress_ip')
      .whereIn('destination', [destination, ALL_DESTINATIONS])
      .where('blocked_until', '>', now)) as Array<{ egress_ip: string }>;
    return new Set(rows.map((row) => row.egress_ip));
  }

  /** Operator: take an address out of every pool (the others keep sending) until enabled again. */
  async disable(egressIp: string, reason: string, now: Date): Promise<void> {
    await this.knex('egress_blocks').where({ egress_ip: egressIp, destination: ALL_DESTINATIONS }).delete();
    await this.knex('egress_blocks').insert({
      egress_ip: egressIp,
      destination: ALL_DESTINATIONS,
      strikes: 0,
      blocked_until: DISABLED_UNTIL,
      last_reply: reason,
      updated_at: now,
    });
  }

  async list(
    now: Date,
  ): Promise<Array<{ egressIp: string; destination: string; strikes: number; blockedUntil: Date | null }>> {
    const rows = (await this.knex('egress_blocks').where('blocked_until', '>', now).orderBy('destination')) as Array<
      Record<string, unknown>
    >;
    return rows.map((row) => ({
      egressIp: String(row.egress_ip),
      destination: String(row.destination),
      strikes: Number(row.strikes),
      blockedUntil: readNullableTimestamp(row.blocked_until),
    }));
  }

  async clear(egressIp: string, destination?: string): Promise<number> {
    const query = this.knex('egress_blocks').where({ egress_ip: egressIp });
    if (destination) query.where({ destination });
    return query.delete();
  }
}
