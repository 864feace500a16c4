import type { Knex } from 'knex';
import { readJson, readNullableTimestamp, readTimestamp, writeJson } from '../../db/dialect.js';
import { paginateNewestFirst, type PageQuery } from '../shared/pagination/list-query.js';

/** A file stored on a draft (the bytes are a blob named by `blob`). */
export type DraftFile = { id: string; filename: string; content_type: string; size: number; blob: string };

export type InboxDraft = {
  id: string;
  inboxId: string;
  teamId: string;
  type: 'standalone' | 'reply';
  to: string[] | null;
  cc: string[];
  bcc: string[];
  subject: string | null;
  html: string | null;
  text: string | null;
  threadId: string | null;
  replyToEmailId: string | null;
  emailId: string | null;
  attachments: DraftFile[];
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
};

type Row = Record<string, unknown>;

const toDraft = (row: Row): InboxDraft => ({
  id: String(row.id),
  inboxId: String(row.inbox_id),
  teamId: String(row.team_id),
  type: row.type as InboxDraft['type'],
  to: readJson<string[] | null>(row.to_addresses, null),
  cc: readJson<string[]>(row.cc_addresses, []),
  bcc: readJson<string[]>(row.bcc_addresses, []),
  subject: (row.subject as string | null) ?? null,
  html: (row.html as string | null) ?? null,
  text: (row.text as string | null) ?? null,
  threadId: (row.thread_id as string | null) ?? null,
  replyToEmailId: (row.reply_to_email_id as string | null) ?? null,
  emailId: (row.email_id as string | null) ?? null,
  attachments: readJson<DraftFile[]>(row.attachments, []),
  createdBy: String(row.created_by),
  createdAt: readTimestamp(row.created_at),
  updatedAt: readNullableTimestamp(row.updated_at) ?? readTimestamp(row.created_at),
});

const toRow = (draft: InboxDraft) => ({
  id: draft.id,
  inbox_id: draft.inboxId,
  team_id: draft.teamId,
  type: draft.type,
  to_addresses: writeJson(draft.to),
  cc_addresses: writeJson(draft.cc),
  bcc_addresses: writeJson(draft.bcc),
  subject: draft.subject,
  html: draft.html,
  text: draft.text,
  thread_id: draft.threadId,
  reply_to_email_id: draft.replyToEmailId,
  email_id: draft.emailId,
  attachments: writeJson(draft.attachments),
  created_by: draft.createdBy,
  created_at: draft.createdAt,
  updated_at: draft.updatedAt,
});

/** Drafts of an inbox; a sent draft keeps its row (email_id set) and leaves the lists. */
export class InboxDraftRepository {
  constructor(private readonly knex: Knex) {}

  private open(db: Knex = this.knex) {
    return db('inbox_drafts').whereNull('deleted_at').whereNull('email_id');
  }

  async insert(draft: InboxDraft): Promise<void> {
    await this.knex('inbox_drafts').insert(toRow(draft));
  }

  async find(inboxId: string, id: string, db: Knex = this.knex): Promise<InboxDraft | undefined> {
    const row = (await this.open(db).where({ inbox_id: inboxId, id }).first()) as Row | undefined;
    return row ? toDraft(row) : undefined;
  }

  async replace(draft: InboxDraft): Promise<boolean> {
    const { id, created_at: _created, ...row } = toRow(draft);
    return (await this.open().where({ id }).update(row)) > 0;
  }

  async softDelete(id: string, at: Date): Promise<boolean> {
    return (await this.open().where({ id }).update({ deleted_at: at, updated_at: at })) > 0;
  }

  /** Marks the draft sent in the email's transaction; false when it was sent or deleted meanwhile. */
  async markSent(db: Knex, id: string, emailId: string, at: Date): Promise<boolean> {
    return (await this.open(db).where({ id }).update({ email_id: emailId, updated_at: at })) > 0;
  }

  async list(inboxId: string, page: PageQuery) {
    const { rows, hasMore } = await paginateNewestFirst<Row>(this.open().where({ inbox_id: inboxId }), page);
    return { drafts: rows.map(toDraft), hasMore };
  }

  async ofThread(threadId: string): Promise<InboxDraft[]> {
    return ((await this.open().where({ thread_id: threadId }).orderBy('id', 'asc')) as Row[]).map(toDraft);
  }
}
