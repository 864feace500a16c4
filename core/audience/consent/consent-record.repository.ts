import type { Knex } from 'knex';
import { readTimestamp } from '../../../db/dialect.js';
import { paginateNewestFirst, type PageQuery } from '../../shared/pagination/list-query.js';
import type { ConsentRecord, ConsentSource } from './consent-record.types.js';

type Row = {
  id: string;
  team_id: string;
  contact_id: string | null;
  email_hash: string;
  kind: string;
  topic_id: string | null;
  value: string;
  source: string;
  ip: string | null;
  user_agent: string | null;
  created_at: unknown;
};

const toRecord = (row: Row): ConsentRecord => ({
  id: row.id,
  teamId: row.team_id,
  contactId: row.contact_id,
  emailHash: row.email_hash,
  kind: row.kind as ConsentRecord['kind'],
  topicId: row.topic_id,
  value: row.value,
  source: row.source as ConsentSource,
  ip: row.ip,
  userAgent: row.user_agent,
  createdAt: readTimestamp(row.created_at),
});

export class ConsentRecordRepository {
  constructor(private readonly knex: Knex) {}

  async insertMany(records: ConsentRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.knex('consent_records').insert(
      records.map((r) => ({
        id: r.id,
        team_id: r.teamId,
        contact_id: r.contactId,
        email_hash: r.emailHash,
        kind: r.kind,
        topic_id: r.topicId,
        value: r.value,
        source: r.source,
        ip: r.ip,
        user_agent: r.userAgent,
        created_at: r.createdAt,
      })),
    );
  }

  /** Erasure: the records stay, no longer linked to a contact row. */
  async detachContact(teamId: string, contactId: string): Promise<void> {
    await this.knex('consent_records').where({ team_id: teamId, contact_id: contactId }).update({ contact_id: null });
  }

  async listForContact(teamId: string, contactId: string, page: PageQuery) {
    const { rows, hasMore } = await paginateNewestFirst<Row>(
      this.knex('consent_records').where({ team_id: teamId, contact_id: contactId }),
      page,
    );
    return { records: rows.map(toRecord), hasMore };
  }

  async listForHash(teamId: string, emailHash: string): Promise<ConsentRecord[]> {
    return (
      (await this.knex('consent_records').where({ team_id: teamId, email_hash: emailHash }).orderBy('id')) as Row[]
    ).map(toRecord);
  }

  /** Deletes up to `limit` records created before `cutoff`; returns how many went. */
  async purgeBefore(cutoff: Date, limit: number): Promise<number> {
    const ids = (await this.knex('consent_records')
      .where('created_at', '<', cutoff)
      .limit(limit)
      .pluck('id')) as string[];
    if (ids.length > 0) await this.knex('consent_records').whereIn('id', ids).delete();
    return ids.length;
  }
}
