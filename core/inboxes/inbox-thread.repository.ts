import type { Knex } from 'knex';
import { readBoolean, readJson, readTimestamp, whereContains, writeJson } from '../../db/dialect.js';
import type { PageQuery } from '../shared/pagination/list-query.js';
import { pageByTime } from '../shared/pagination/time-keyset.js';
import type { InboxFolder, InboxMessage, InboxMessageAttachment, InboxThread, ThreadAction } from './inbox.types.js';

type ThreadRow = {
  id: string;
  inbox_id: string;
  team_id: string;
  subject: string | null;
  folder: string;
  read: unknown;
  assignee_user_id: string | null;
  assignee_email: string | null;
  email_count: unknown;
  has_attachment: unknown;
  last_message_at: unknown;
  created_at: unknown;
  updated_at: unknown;
};

type MessageRow = {
  id: string;
  inbox_id: string;
  thread_id: string;
  team_id: string;
  direction: string;
  rfc_message_id: string | null;
  references_ids: unknown;
  from_address: string;
  to_addresses: unknown;
  cc_addresses: unknown;
  bcc_addresses: unknown;
  reply_to_addresses: unknown;
  subject: string | null;
  attachments: unknown;
  read: unknown;
  received_at: unknown;
};

const toThread = (row: ThreadRow): InboxThread => ({
  id: row.id,
  inboxId: row.inbox_id,
  teamId: row.team_id,
  subject: row.subject,
  folder: row.folder as InboxFolder,
  read: readBoolean(row.read),
  assigneeUserId: row.assignee_user_id,
  assigneeEmail: row.assignee_email,
  emailCount: Number(row.email_count),
  hasAttachment: readBoolean(row.has_attachment),
  lastMessageAt: readTimestamp(row.last_message_at),
  createdAt: readTimestamp(row.created_at),
  updatedAt: readTimestamp(row.updated_at),
});

export type StoredMessage = InboxMessage & { references: string[] };

const toMessage = (row: MessageRow): StoredMessage => ({
  id: row.id,
  inboxId: row.inbox_id,
  threadId: row.thread_id,
  teamId: row.team_id,
  direction: row.direction as 'inbound' | 'outbound',
  rfcMessageId: row.rfc_message_id,
  references: readJson<string[]>(row.references_ids, []),
  from: row.from_address,
  to: readJson<string[]>(row.to_addresses, []),
  cc: readJson<string[]>(row.cc_addresses, []),
  bcc: readJson<string[]>(row.bcc_addresses, []),
  replyTo: readJson<string[]>(row.reply_to_addresses, []),
  subject: row.subject,
  attachments: readJson<InboxMessageAttachment[]>(row.attachments, []),
  read: readBoolean(row.read),
  receivedAt: readTimestamp(row.received_at),
});

/** What a thread list may be narrowed by (list and search). */
export type ThreadFilter = {
  folders?: InboxFolder[];
  labels?: string[];
  read?: boolean;
  query?: string;
  from?: string[];
  to?: string[];
  cc?: string[];
  bcc?: string[];
  hasAttachment?: boolean;
  startDate?: Date;
  endDate?: Date;
};

const MESSAGE_FIELDS: Array<[keyof ThreadFilter & ('from' | 'to' | 'cc' | 'bcc'), string]> = [
  ['from', 'from_address'],
  ['to', 'to_addresses'],
  ['cc', 'cc_addresses'],
  ['bcc', 'bcc_addresses'],
];

/** Threads and their messages (references to received and sent emails), and the thread's action log. */
export class InboxThreadRepository {
  constructor(private readonly knex: Knex) {}

  private liveThreads(db: Knex = this.knex) {
    return db('inbox_threads').whereNull('deleted_at');
  }

  async insertThread(db: Knex, thread: InboxThread): Promise<void> {
    await db('inbox_threads').insert({
      id: thread.id,
      inbox_id: thread.inboxId,
      team_id: thread.teamId,
      subject: thread.subject?.slice(0, 1000) ?? null,
      folder: thread.folder,
      read: thread.read,
      assignee_user_id: thread.assigneeUserId,
      assignee_email: thread.assigneeEmail,
      email_count: thread.emailCount,
      has_attachment: thread.hasAttachment,
      last_message_at: thread.lastMessageAt,
      created_at: thread.createdAt,
      updated_at: thread.updatedAt,
    });
  }

  async insertMessage(db: Knex, message: StoredMessage): Promise<void> {
    await db('inbox_messages').insert({
      id: message.id,
      inbox_id: message.inboxId,
      thread_id: message.threadId,
      team_id: message.teamId,
      direction: message.direction,
      rfc_message_id: message.rfcMessageId?.slice(0, 500) ?? null,
      references_ids: writeJson(message.references.slice(-50)),
      from_address: message.from.slice(0, 1000),
      to_addresses: writeJson(message.to),
      cc_addresses: writeJson(message.cc),
      bcc_addresses: writeJson(message.bcc),
      reply_to_addresses: writeJson(message.replyTo),
      subject: message.subject?.slice(0, 1000) ?? null,
      attachments: writeJson(message.attachments),
      read: message.read,
      received_at: message.receivedAt,
    });
  }

  /** A message joins its thread: the count, the activity time and the attachment flag follow. */
  async addedMessage(
    db: Knex,
    threadId: string,
    message: StoredMessage,
    changes: Record<string, unknown>,
  ): Promise<void> {
    await db('inbox_threads')
      .where({ id: threadId })
      .update({
        email_count: db.raw('email_count + 1'),
        last_message_at: message.receivedAt,
        updated_at: message.receivedAt,
        ...(message.attachments.length > 0 ? { has_attachment: true } : {}),
        ...changes,
      });
  }

  /** The live thread of this inbox holding a message with one of these ids, if any. */
  async threadOfMessageIds(db: Knex, inboxId: string, ids: string[]): Promise<InboxThread | undefined> {
    if (ids.length === 0) return undefined;
    const row = (await db('inbox_messages as m')
      .join('inbox_threads as t', 't.id', 'm.thread_id')
      .where('m.inbox_id', inboxId)
      .whereIn('m.rfc_message_id', ids)
      .whereNull('t.deleted_at')
      .orderBy('m.received_at', 'desc')
      .first('t.*')) as ThreadRow | undefined;
    return row ? toThread(row) : undefined;
  }

  async findThread(inboxId: string, id: string, db: Knex = this.knex): Promise<InboxThread | undefined> {
    const row = (await this.liveThreads(db).where({ inbox_id: inboxId, id }).first()) as ThreadRow | undefined;
    return row ? toThread(row) : undefined;
  }

  async updateThread(db: Knex, id: string, changes: Record<string, unknown>): Promise<void> {
    await db('inbox_threads').where({ id }).update(changes);
  }

  /** A deleted thread is gone from every list; its emails stay where they are (received and sent mail). */
  async deleteThread(id: string, at: Date): Promise<boolean> {
    return (await this.liveThreads().where({ id }).update({ deleted_at: at, updated_at: at })) > 0;
  }

  /**
   * Threads by latest activity, newest first; cursors are thread ids (the keyset is the
   * activity time and the id, read from the cursor's row).
   */
  async list(inboxId: string, filter: ThreadFilter, page: PageQuery) {
    const query = this.liveThreads().where({ inbox_id: inboxId });
    this.applyFilter(query, filter);
    const cursorId = page.after ?? page.before;
    const cursor = cursorId
      ? ((await this.knex('inbox_threads').where({ inbox_id: inboxId, id: cursorId }).first('last_message_at')) as
          { last_message_at: unknown } | undefined)
      : undefined;
    const { rows, hasMore } = await pageByTime<ThreadRow>(query, page, {
      column: 'last_message_at',
      cursorTime: cursor ? readTimestamp(cursor.last_message_at) : null,
      newestFirst: true,
    });
    return { threads: rows.map(toThread), hasMore };
  }

  private applyFilter(query: Knex.QueryBuilder, filter: ThreadFilter): void {
    if (filter.folders?.length) query.whereIn('folder', filter.folders);
    if (filter.read !== undefined) query.where('read', filter.read);
    if (filter.hasAttachment !== undefined) query.where('has_attachment', filter.hasAttachment);
    if (filter.labels?.length)
      query.whereIn('id', this.knex('inbox_thread_labels').whereIn('label_id', filter.labels).select('thread_id'));
    const messageConditions = this.messageConditions(filter);
    if (messageConditions) query.whereIn('id', messageConditions.select('thread_id'));
  }

  /** Conditions on a thread's emails (search): one email must meet all of them. */
  private messageConditions(filter: ThreadFilter): Knex.QueryBuilder | undefined {
    const sub = this.knex('inbox_messages');
    let any = false;
    if (filter.query) {
      whereContains(sub, ['subject', 'from_address', 'to_addresses', 'cc_addresses'], filter.query);
      any = true;
    }
    for (const [key, column] of MESSAGE_FIELDS) {
      const values = filter[key];
      if (!values?.length) continue;
      sub.where((q) => {
        for (const value of values) q.orWhere((one) => whereContains(one, [column], value));
      });
      any = true;
    }
    if (filter.startDate) (sub.where('received_at', '>=', filter.startDate), (any = true));
    if (filter.endDate) (sub.where('received_at', '<=', filter.endDate), (any = true));
    return any ? sub : undefined;
  }

  /** The email of each thread that a search matched (the newest one), for matched_email_id. */
  async matchedEmails(threadIds: string[], filter: ThreadFilter): Promise<Map<string, string>> {
    const conditions = this.messageConditions(filter);
    if (!conditions || threadIds.length === 0) return new Map();
    const rows = (await conditions
      .whereIn('thread_id', threadIds)
      .orderBy('received_at', 'asc')
      .select('thread_id', 'id')) as Array<{ thread_id: string; id: string }>;
    return new Map(rows.map((row) => [row.thread_id, row.id]));
  }

  /** The newest email of each thread (what a thread list shows as from/to). */
  async latestMessages(threadIds: string[]): Promise<Map<string, StoredMessage>> {
    if (threadIds.length === 0) return new Map();
    const rows = (await this.knex('inbox_messages')
      .whereIn('thread_id', threadIds)
      .orderBy('received_at', 'asc')) as MessageRow[];
    return new Map(rows.map((row) => [row.thread_id, toMessage(row)]));
  }

  /** Threads with an open draft. */
  async withDrafts(threadIds: string[]): Promise<Set<string>> {
    if (threadIds.length === 0) return new Set();
    const rows = (await this.knex('inbox_drafts')
      .whereIn('thread_id', threadIds)
      .whereNull('deleted_at')
      .whereNull('email_id')
      .distinct('thread_id')) as Array<{ thread_id: string }>;
    return new Set(rows.map((row) => row.thread_id));
  }

  /** A thread's emails, oldest first (a conversation reads top down); cursors are email ids. */
  async messages(threadId: string, page: PageQuery): Promise<{ messages: StoredMessage[]; hasMore: boolean }> {
    const cursorId = page.after ?? page.before;
    const cursor = cursorId
      ? ((await this.knex('inbox_messages').where({ thread_id: threadId, id: cursorId }).first('received_at')) as
          { received_at: unknown } | undefined)
      : undefined;
    const { rows, hasMore } = await pageByTime<MessageRow>(
      this.knex('inbox_messages').where({ thread_id: threadId }),
      page,
      {
        column: 'received_at',
        cursorTime: cursor ? readTimestamp(cursor.received_at) : null,
        newestFirst: false,
      },
    );
    return { messages: rows.map(toMessage), hasMore };
  }

  async findMessage(threadId: string, id: string): Promise<StoredMessage | undefined> {
    const row = (await this.knex('inbox_messages').where({ thread_id: threadId, id }).first()) as
      MessageRow | undefined;
    return row ? toMessage(row) : undefined;
  }

  async markMessagesRead(db: Knex, threadId: string, read: boolean): Promise<void> {
    await db('inbox_messages').where({ thread_id: threadId }).update({ read });
  }

  async markMessageRead(threadId: string, id: string): Promise<void> {
    await this.knex('inbox_messages').where({ thread_id: threadId, id }).update({ read: true });
  }

  async recordAction(db: Knex, teamId: string, inboxId: string, action: ThreadAction): Promise<void> {
    await db('inbox_thread_actions').insert({
      id: action.id,
      thread_id: action.threadId,
      inbox_id: inboxId,
      team_id: teamId,
      action: action.action,
      source: action.source,
      reason: action.reason,
      detail: writeJson(action.detail),
      created_at: action.createdAt,
    });
  }

  async actions(threadId: string): Promise<ThreadAction[]> {
    const rows = (await this.knex('inbox_thread_actions')
      .where({ thread_id: threadId })
      .orderBy('id', 'asc')) as Array<{
      id: string;
      thread_id: string;
      action: string;
      source: string;
      reason: string | null;
      detail: unknown;
      created_at: unknown;
    }>;
    return rows.map((row) => ({
      id: row.id,
      threadId: row.thread_id,
      action: row.action,
      source: row.source as ThreadAction['source'],
      reason: row.reason,
      detail: readJson<Record<string, unknown> | null>(row.detail, null),
      createdAt: readTimestamp(row.created_at),
    }));
  }
}
