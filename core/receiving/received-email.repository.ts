import type { Knex } from 'knex';
import { readJson, readTimestamp, whereContains, writeJson } from '../../db/dialect.js';
import { spoolRefRange } from '../../lib/spool/spool-ref-text.js';
import { paginateNewestFirst, type PageQuery } from '../shared/pagination/list-query.js';
import type { DroppedReason, ReceivedEmail } from './received-email.types.js';

const TABLE = 'received_emails';

export type ReceivedEmailFilter = PageQuery & { search?: string; start_date?: Date; end_date?: Date };

const fromRow = (row: Record<string, unknown>): ReceivedEmail => ({
  id: String(row.id),
  teamId: String(row.team_id),
  from: String(row.from_header),
  to: readJson<string[]>(row.to_addresses, []),
  cc: readJson<string[]>(row.cc_addresses, []),
  bcc: readJson<string[]>(row.bcc_addresses, []),
  replyTo: readJson<string[]>(row.reply_to, []),
  receivedFor: readJson<string[]>(row.received_for, []),
  subject: String(row.subject),
  messageId: String(row.message_id),
  attachments: readJson(row.attachments, []),
  authentication: readJson(row.authentication, null),
  envelopeFrom: String(row.envelope_from),
  remoteIp: row.remote_ip === null ? null : String(row.remote_ip),
  droppedReason: (row.dropped_reason ?? null) as DroppedReason | null,
  rawBlob: row.raw_blob === null ? null : String(row.raw_blob),
  sizeBytes: Number(row.size_bytes),
  createdAt: readTimestamp(row.created_at),
});

const toRow = (email: ReceivedEmail) => ({
  id: email.id,
  team_id: email.teamId,
  from_header: email.from.slice(0, 998),
  to_addresses: writeJson(email.to),
  cc_addresses: writeJson(email.cc),
  bcc_addresses: writeJson(email.bcc),
  reply_to: writeJson(email.replyTo),
  received_for: writeJson(email.receivedFor),
  subject: email.subject,
  message_id: email.messageId.slice(0, 998),
  attachments: writeJson(email.attachments),
  authentication: writeJson(email.authentication),
  envelope_from: email.envelopeFrom.slice(0, 320),
  remote_ip: email.remoteIp,
  dropped_reason: email.droppedReason,
  raw_blob: email.rawBlob,
  size_bytes: email.sizeBytes,
  created_at: email.createdAt,
});

export class ReceivedEmailRepository {
  constructor(private readonly knex: Knex) {}

  async insertMany(trx: Knex, emails: ReceivedEmail[]): Promise<void> {
    if (emails.length > 0) await trx(TABLE).insert(emails.map(toRow));
  }

  async findById(id: string): Promise<ReceivedEmail | undefined> {
    const row = await this.knex(TABLE).where({ id }).first();
    return row ? fromRow(row) : undefined;
  }

  async findInTeam(teamId: string, id: string): Promise<ReceivedEmail | undefined> {
    const row = await this.knex(TABLE).where({ team_id: teamId, id }).first();
    return row ? fromRow(row) : undefined;
  }

  /** Newest first; search is a case-insensitive substring of the subject, the sender or any recipient. */
  async list(teamId: string, filter: ReceivedEmailFilter): Promise<{ emails: ReceivedEmail[]; hasMore: boolean }> {
    const query = this.knex(TABLE).where({ team_id: teamId });
    if (filter.search)
      whereContains(
        query,
        ['subject', 'from_header', 'to_addresses', 'cc_addresses', 'bcc_addresses', 'received_for'],
        filter.search,
      );
    if (filter.start_date) query.where('created_at', '>=', filter.start_date);
    if (filter.end_date) query.where('created_at', '<=', filter.end_date);
    const { rows, hasMore } = await paginateNewestFirst<Record<string, unknown>>(query, filter);
    return { emails: rows.map(fromRow), hasMore };
  }

  /** Rows created before `before` for teams on the given plan (or of teams gone), oldest first. */
  async expired(
    planCode: string | null,
    before: Date,
    limit: number,
  ): Promise<Array<{ id: string; rawBlob: string | null }>> {
    const query = this.knex(TABLE).select(`${TABLE}.id`, `${TABLE}.raw_blob`).limit(limit);
    if (planCode === null) query.leftJoin('teams', 'teams.id', `${TABLE}.team_id`).whereNull('teams.id');
    else
      query
        .join('teams', 'teams.id', `${TABLE}.team_id`)
        .where('teams.plan_code', planCode)
        .where(`${TABLE}.created_at`, '<', before);
    const rows = (await query) as Array<{ id: string; raw_blob: string | null }>;
    return rows.map((row) => ({ id: String(row.id), rawBlob: row.raw_blob === null ? null : String(row.raw_blob) }));
  }

  async deleteIds(ids: string[]): Promise<void> {
    if (ids.length > 0) await this.knex(TABLE).whereIn('id', ids).delete();
  }

  /** Whether a row's raw message is a record of this spool segment (an index range read). */
  async refersToSpoolSegment(segment: string): Promise<boolean> {
    const [from, to] = spoolRefRange(segment);
    return Boolean(await this.knex(TABLE).where('raw_blob', '>=', from).where('raw_blob', '<', to).first('id'));
  }

  /** Of these blobs, the ones no row refers to any more. */
  async unreferencedBlobs(blobs: string[]): Promise<string[]> {
    if (blobs.length === 0) return [];
    const used = (await this.knex(TABLE).distinct('raw_blob').whereIn('raw_blob', blobs)) as Array<{
      raw_blob: string;
    }>;
    const stillUsed = new Set(used.map((row) => String(row.raw_blob)));
    return blobs.filter((blob) => !stillUsed.has(blob));
  }
}
