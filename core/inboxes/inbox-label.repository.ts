import type { Knex } from 'knex';
import { readTimestamp } from '../../db/dialect.js';
import type { InboxLabel } from './inbox.types.js';

const TABLE = 'inbox_labels';

type Row = { id: string; inbox_id: string; name: string; color: string; created_at: unknown };

const toLabel = (row: Row): InboxLabel => ({
  id: row.id,
  inboxId: row.inbox_id,
  name: row.name,
  color: row.color,
  createdAt: readTimestamp(row.created_at),
});

/** An inbox's labels, and which threads carry them. */
export class InboxLabelRepository {
  constructor(private readonly knex: Knex) {}

  async insert(label: InboxLabel, teamId: string): Promise<void> {
    await this.knex(TABLE).insert({
      id: label.id,
      inbox_id: label.inboxId,
      team_id: teamId,
      name: label.name,
      color: label.color,
      created_at: label.createdAt,
    });
  }

  async find(inboxId: string, id: string): Promise<InboxLabel | undefined> {
    const row = (await this.knex(TABLE).where({ inbox_id: inboxId, id }).first()) as Row | undefined;
    return row ? toLabel(row) : undefined;
  }

  async findByName(inboxId: string, name: string): Promise<InboxLabel | undefined> {
    const rows = (await this.knex(TABLE).where({ inbox_id: inboxId })) as Row[];
    const folded = name.toLowerCase();
    const row = rows.find((candidate) => candidate.name.toLowerCase() === folded);
    return row ? toLabel(row) : undefined;
  }

  /** Oldest first: the order they were made in, which the dashboard keeps. */
  async list(inboxId: string): Promise<InboxLabel[]> {
    return ((await this.knex(TABLE).where({ inbox_id: inboxId }).orderBy('id', 'asc')) as Row[]).map(toLabel);
  }

  async byIds(inboxId: string, ids: string[]): Promise<InboxLabel[]> {
    if (ids.length === 0) return [];
    return ((await this.knex(TABLE).where({ inbox_id: inboxId }).whereIn('id', ids)) as Row[]).map(toLabel);
  }

  async update(id: string, changes: { name?: string; color?: string }): Promise<void> {
    if (Object.keys(changes).length > 0) await this.knex(TABLE).where({ id }).update(changes);
  }

  async remove(id: string): Promise<void> {
    await this.knex.transaction(async (trx) => {
      await trx('inbox_thread_labels').where({ label_id: id }).delete();
      await trx(TABLE).where({ id }).delete();
    });
  }

  /** The labels of each thread, oldest label first. */
  async ofThreads(db: Knex, threadIds: string[]): Promise<Map<string, InboxLabel[]>> {
    const byThread = new Map<string, InboxLabel[]>(threadIds.map((id) => [id, []]));
    if (threadIds.length === 0) return byThread;
    const rows = (await db('inbox_thread_labels as tl')
      .join(`${TABLE} as l`, 'l.id', 'tl.label_id')
      .whereIn('tl.thread_id', threadIds)
      .orderBy('l.id', 'asc')
      .select('tl.thread_id', 'l.id', 'l.inbox_id', 'l.name', 'l.color', 'l.created_at')) as Array<
      Row & { thread_id: string }
    >;
    for (const row of rows) byThread.get(row.thread_id)!.push(toLabel(row));
    return byThread;
  }

  async attach(db: Knex, threadId: string, labelIds: string[], at: Date): Promise<void> {
    const present = new Set(
      (
        (await db('inbox_thread_labels').where({ thread_id: threadId }).select('label_id')) as Array<{
          label_id: string;
        }>
      ).map((row) => row.label_id),
    );
    const rows = labelIds
      .filter((id) => !present.has(id))
      .map((label_id) => ({ thread_id: threadId, label_id, created_at: at }));
    if (rows.length > 0) await db('inbox_thread_labels').insert(rows);
  }

  async detach(db: Knex, threadId: string, labelIds: string[]): Promise<void> {
    if (labelIds.length > 0)
      await db('inbox_thread_labels').where({ thread_id: threadId }).whereIn('label_id', labelIds).delete();
  }
}
