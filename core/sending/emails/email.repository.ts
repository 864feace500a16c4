import type { Knex } from 'knex';
import { bulkInsertObjects } from '../../../db/bulk-insert.js';
import { readJson, readNullableTimestamp, readTimestamp, tableUsingIndex, writeJson } from '../../../db/dialect.js';
import { paginateNewestFirst, type PageQuery } from '../../shared/pagination/list-query.js';
import type { Email, EmailAttachment, EmailLastEvent } from './email.types.js';
import { applyEmailListFilter, emailListIndex, type EmailListFilter } from './email-list-filter.js';

type Row = Record<string, unknown>;

const toEmail = (row: Row): Email => ({
  id: String(row.id),
  teamId: String(row.team_id),
  domainId: String(row.domain_id),
  apiKeyId: (row.api_key_id as string | null) ?? null,
  fromHeader: String(row.from_header),
  fromAddress: String(row.from_address),
  to: readJson<string[]>(row.to_addresses, []),
  cc: readJson<string[] | null>(row.cc_addresses, null),
  bcc: readJson<string[] | null>(row.bcc_addresses, null),
  replyTo: readJson<string[] | null>(row.reply_to, null),
  suppressedRecipients: readJson<string[]>(row.suppressed_recipients, []),
  subject: String(row.subject),
  tags: readJson<Record<string, string> | null>(row.tags, null),
  headers: readJson<Record<string, string> | null>(row.headers, null),
  templateId: (row.template_id as string | null) ?? null,
  templateVersionId: (row.template_version_id as string | null) ?? null,
  topicId: (row.topic_id as string | null) ?? null,
  broadcastId: (row.broadcast_id as string | null) ?? null,
  messageId: String(row.message_id),
  lastEvent: row.last_event as EmailLastEvent,
  scheduledAt: readNullableTimestamp(row.scheduled_at),
  sizeBytes: Number(row.size_bytes),
  spool: { segment: String(row.spool_segment), offset: Number(row.spool_offset), length: Number(row.spool_length) },
  createdAt: readTimestamp(row.created_at),
  updatedAt: readTimestamp(row.updated_at),
});

const toAttachment = (row: Row): EmailAttachment => ({
  id: String(row.id),
  emailId: String(row.email_id),
  teamId: String(row.team_id),
  position: Number(row.position),
  filename: (row.filename as string | null) ?? null,
  contentType: String(row.content_type),
  contentDisposition: row.content_disposition as EmailAttachment['contentDisposition'],
  contentId: (row.content_id as string | null) ?? null,
  size: Number(row.size),
  spool: { segment: String(row.spool_segment), offset: Number(row.spool_offset), length: Number(row.spool_length) },
  createdAt: readTimestamp(row.created_at),
});

const toRow = (email: Email): Row => ({
  id: email.id,
  team_id: email.teamId,
  domain_id: email.domainId,
  api_key_id: email.apiKeyId,
  from_header: email.fromHeader,
  from_address: email.fromAddress,
  to_addresses: JSON.stringify(email.to),
  cc_addresses: writeJson(email.cc),
  bcc_addresses: writeJson(email.bcc),
  reply_to: writeJson(email.replyTo),
  suppressed_recipients: writeJson(email.suppressedRecipients.length > 0 ? email.suppressedRecipients : null),
  subject: email.subject,
  tags: writeJson(email.tags),
  headers: writeJson(email.headers),
  template_id: email.templateId,
  template_version_id: email.templateVersionId,
  topic_id: email.topicId,
  broadcast_id: email.broadcastId,
  message_id: email.messageId,
  last_event: email.lastEvent,
  scheduled_at: email.scheduledAt,
  size_bytes: email.sizeBytes,
  spool_segment: email.spool.segment,
  spool_offset: email.spool.offset,
  spool_length: email.spool.length,
  created_at: email.createdAt,
  updated_at: email.updatedAt,
});

export class EmailRepository {
  constructor(private readonly knex: Knex) {}

  async insert(email: Email): Promise<void> {
    await this.insertMany([email]);
  }

  /** Several emails in multi-row INSERTs (the group committer writes a group's emails at once). */
  async insertMany(emails: Email[]): Promise<void> {
    await bulkInsertObjects(this.knex, 'emails', emails.map(toRow));
  }

  async insertAttachments(attachments: EmailAttachment[]): Promise<void> {
    if (attachments.length === 0) return;
    await this.knex('email_attachments').insert(
      attachments.map((a) => ({
        id: a.id,
        email_id: a.emailId,
        team_id: a.teamId,
        position: a.position,
        filename: a.filename,
        content_type: a.contentType,
        content_disposition: a.contentDisposition,
        content_id: a.contentId,
        size: a.size,
        spool_segment: a.spool.segment,
        spool_offset: a.spool.offset,
        spool_length: a.spool.length,
        created_at: a.createdAt,
      })),
    );
  }

  async attachmentsOf(emailId: string): Promise<EmailAttachment[]> {
    return ((await this.knex('email_attachments').where({ email_id: emailId }).orderBy('position')) as Row[]).map(
      toAttachment,
    );
  }

  async findAttachment(id: string): Promise<EmailAttachment | undefined> {
    const row = (await this.knex('email_attachments').where({ id }).first()) as Row | undefined;
    return row ? toAttachment(row) : undefined;
  }

  /** Any team's email, for the MTA and tracking (callers that hold no team context). */
  async findById(id: string): Promise<Email | undefined> {
    const row = (await this.knex('emails').where({ id }).first()) as Row | undefined;
    return row ? toEmail(row) : undefined;
  }

  /** The emails with these ids that exist, in one query (the MTA reads a claim's emails at once). */
  async findByIds(ids: string[]): Promise<Email[]> {
    if (ids.length === 0) return [];
    return ((await this.knex('emails').whereIn('id', ids)) as Row[]).map(toEmail);
  }

  /** Emails accepted for immediate delivery and not yet handed to the MTA, oldest first. */
  /**
   * Queued emails to hand to the MTA: transactional ones first, oldest first, then broadcast
   * emails (oldest broadcast first) in the room left. A broadcast's backlog of 100,000 queued
   * emails must not stand in front of a password reset: the MTA's lanes only begin after the
   * hand-over. Both reads walk the (last_event, broadcast_id, created_at) index.
   */
  async queuedForHandOver(limit: number): Promise<Email[]> {
    const transactional = (await this.knex('emails')
      .where({ last_event: 'queued' })
      .whereNull('broadcast_id')
      .orderBy('created_at')
      .limit(limit)) as Row[];
    const room = limit - transactional.length;
    const bulk =
      room > 0
        ? ((await this.knex('emails')
            .where({ last_event: 'queued' })
            .whereNotNull('broadcast_id')
            .orderBy([{ column: 'broadcast_id' }, { column: 'created_at' }])
            .limit(room)) as Row[])
        : [];
    return [...transactional, ...bulk].map(toEmail);
  }

  /** queued -> sent, once: true only for the caller whose update moved the row. */
  async markHandedOver(id: string, now: Date): Promise<boolean> {
    return (
      (await this.knex('emails')
        .where({ id, last_event: 'queued' })
        .update({ last_event: 'sent', updated_at: now })) === 1
    );
  }

  async findInTeam(teamId: string, id: string): Promise<Email | undefined> {
    const row = (await this.knex('emails').where({ team_id: teamId, id }).first()) as Row | undefined;
    return row ? toEmail(row) : undefined;
  }

  /** A page of the team's emails, newest first, with the dashboard's filters (see email-list-filter.ts). */
  async list(teamId: string, page: PageQuery & EmailListFilter): Promise<{ emails: Email[]; hasMore: boolean }> {
    const emails = tableUsingIndex(this.knex, 'emails', emailListIndex(page));
    const query = applyEmailListFilter(emails.where({ team_id: teamId }), page);
    const { rows, hasMore } = await paginateNewestFirst<Row>(query, page);
    return { emails: rows.map(toEmail), hasMore };
  }

  /** Changes a scheduled email; false when it is no longer scheduled (dispatched or canceled). */
  async updateIfScheduled(
    id: string,
    changes: { scheduledAt?: Date; lastEvent?: EmailLastEvent; updatedAt: Date },
  ): Promise<boolean> {
    const row: Record<string, unknown> = { updated_at: changes.updatedAt };
    if (changes.scheduledAt) row.scheduled_at = changes.scheduledAt;
    if (changes.lastEvent) row.last_event = changes.lastEvent;
    return (await this.knex('emails').where({ id, last_event: 'scheduled' }).update(row)) === 1;
  }

  async dueScheduled(now: Date, limit: number): Promise<string[]> {
    const rows = (await this.knex('emails')
      .select('id')
      .where({ last_event: 'scheduled' })
      .where('scheduled_at', '<=', now)
      .orderBy('scheduled_at')
      .limit(limit)) as Array<{ id: string }>;
    return rows.map((row) => row.id);
  }

  /**
   * scheduled -> queued, once: true only for the caller whose update moved the row; false when
   * the email is no longer scheduled, or no longer due (a reschedule that landed after the due
   * list was read wins over this dispatch).
   */
  async dispatch(id: string, now: Date): Promise<boolean> {
    return (
      (await this.knex('emails')
        .where({ id, last_event: 'scheduled' })
        .where('scheduled_at', '<=', now)
        .update({ last_event: 'queued', updated_at: now })) === 1
    );
  }

  /** Whether any email or attachment still points into this spool segment. */
  async segmentReferenced(segment: string): Promise<boolean> {
    const email = await this.knex('emails').where({ spool_segment: segment }).first('id');
    if (email) return true;
    return Boolean(await this.knex('email_attachments').where({ spool_segment: segment }).first('id'));
  }

  /** Emails the team sent since `since` (suppressed-only ones included: they were attempted). */
  /** Emails created since `since`: transactional ones, or (marketing) those of broadcasts. */
  async countSince(
    teamId: string,
    since: Date,
    meter: 'transactional' | 'marketing' = 'transactional',
  ): Promise<number> {
    const query = this.knex('emails').where({ team_id: teamId }).where('created_at', '>=', since);
    if (meter === 'marketing') query.whereNotNull('broadcast_id');
    else query.whereNull('broadcast_id');
    const [row] = (await query.count({ n: '*' })) as Array<{ n: number | string }>;
    return Number(row?.n ?? 0);
  }
}
