import type { Knex } from 'knex';
import { readNullableTimestamp, readTimestamp } from '../../../db/dialect.js';

/** One attempt as the operator reads it (`mailroom queue show`), and the team (GET /emails/{id}/deliveries). */
export type AttemptView = {
  id?: string;
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

  /**
   * The attempts of several deliveries (one email's) in one read, oldest first per delivery, the
   * `perDelivery` most recent of each kept: a delivery retried for days has dozens, and each
   * transcript may be transcriptMaxBytes long. Transcripts are read in a second query for the
   * kept attempts only.
   */
  async attemptsOfDeliveries(
    deliveryIds: string[],
    options: { transcripts: boolean; perDelivery: number },
  ): Promise<Map<string, AttemptView[]>> {
    const byDelivery = new Map<string, AttemptView[]>();
    if (deliveryIds.length === 0) return byDelivery;
    const rows = (await this.knex('delivery_attempts')
      .select('id', 'delivery_id', 'created_at', 'outcome', 'egress_ip', 'mx_host', 'reply', 'duration_ms')
      .whereIn('delivery_id', deliveryIds)
      .orderBy('id')) as Array<Record<string, unknown>>;
    for (const row of rows) {
      const list = byDelivery.get(String(row.delivery_id)) ?? [];
      list.push({
        id: String(row.id),
        at: readTimestamp(row.created_at),
        outcome: String(row.outcome),
        egressIp: (row.egress_ip as string | null) ?? null,
        mxHost: (row.mx_host as string | null) ?? null,
        reply: (row.reply as string | null) ?? null,
        durationMs: Number(row.duration_ms),
      });
      if (list.length > options.perDelivery) list.shift();
      byDelivery.set(String(row.delivery_id), list);
    }
    if (options.transcripts) await this.addTranscripts([...byDelivery.values()].flat());
    return byDelivery;
  }

  private async addTranscripts(attempts: AttemptView[]): Promise<void> {
    const byId = new Map(attempts.map((attempt) => [attempt.id!, attempt]));
    for (const attempt of attempts) attempt.transcript = null;
    const ids = [...byId.keys()];
    for (let i = 0; i < ids.length; i += 500) {
      const rows = (await this.knex('delivery_attempts')
        .select('id', 'transcript')
        .whereIn('id', ids.slice(i, i + 500))) as Array<{ id: string; transcript: string | null }>;
      for (const row of rows) byId.get(row.id)!.transcript = row.transcript ?? null;
    }
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
