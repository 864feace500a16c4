import type { Knex } from 'knex';
import { readNullableTimestamp, readTimestamp } from '../../../db/dialect.js';

/** One attempt as the operator reads it (`mailroom queue show`). */
export type AttemptView = {
  at: Date;
  outcome: string;
  egressIp: string | null;
  mxHost: string | null;
  reply: string | null;
  durationMs: number;
  transcript?: string | null;
};

/** A rest of an egress address from one destination, or (destination `*`) an operator's disable. */
export type EgressBlockView = {
  egressIp: string;
  destination: string;
  strikes: number;
  blockedUntil: Date;
  /** The rejection that caused a rest, or the reason an operator gave. */
  reason: string | null;
  since: Date;
};

/** Read-only views of the outbound queue for operator commands; nothing here changes a row. */
export class QueueInspection {
  constructor(private readonly knex: Knex) {}

  async attempts(deliveryId: string, withTranscripts: boolean): Promise<AttemptView[]> {
    const rows = (await this.knex('delivery_attempts')
      .where({ delivery_id: deliveryId })
      .orderBy('created_at')) as Array<Record<string, unknown>>;
    return rows.map((row) => ({
      at: readTimestamp(row.created_at),
      outcome: String(row.outcome),
      egressIp: (row.egress_ip as string | null) ?? null,
      mxHost: (row.mx_host as string | null) ?? null,
      reply: (row.reply as string | null) ?? null,
      durationMs: Number(row.duration_ms),
      ...(withTranscripts ? { transcript: (row.transcript as string | null) ?? null } : {}),
    }));
  }

  /** Rests and disables in force now, with their reason (EgressBlockRepository.list leaves it out). */
  async activeBlocks(now: Date): Promise<EgressBlockView[]> {
    const rows = (await this.knex('egress_blocks')
      .where('blocked_until', '>', now)
      .orderBy(['egress_ip', 'destination'])) as Array<Record<string, unknown>>;
    return rows.map((row) => ({
      egressIp: String(row.egress_ip),
      destination: String(row.destination),
      strikes: Number(row.strikes),
      blockedUntil: readNullableTimestamp(row.blocked_until)!,
      reason: (row.last_reply as string | null) ?? null,
      since: readTimestamp(row.updated_at),
    }));
  }
}
