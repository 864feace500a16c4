import type { Knex } from 'knex';
import type { FileBlobStore } from '../../lib/blob-store.js';
import type { Clock } from '../../lib/clock.js';
import type { DraftFile } from './inbox-draft.repository.js';
import { readJson } from '../../db/dialect.js';

/** How long a deleted or sent draft, a deleted thread or inbox, is kept before its rows go. */
export const INBOX_TOMBSTONE_DAYS = 30;
const BATCH = 500;

/**
 * Retention of the inbox tables. An inbox message is a reference: once the received or sent
 * email it points to is gone (their own retention, by the team's plan), the reference goes too,
 * then threads left without emails (with their labels and recorded actions). Deleted and sent
 * drafts (with their files), deleted threads and deleted inboxes are kept 30 days, then removed.
 */
export class InboxRetention {
  constructor(private readonly deps: { knex: Knex; clock: Clock; blobs: FileBlobStore }) {}

  async purge(): Promise<{ messages: number; threads: number; drafts: number; inboxes: number }> {
    const { knex } = this.deps;
    const before = new Date(this.deps.clock.now().getTime() - INBOX_TOMBSTONE_DAYS * 86_400_000);
    const messages =
      (await this.deleteOrphans('inbound', 'received_emails')) + (await this.deleteOrphans('outbound', 'emails'));
    // Threads deleted long enough ago, and threads whose every email has gone.
    let threads = 0;
    for (;;) {
      const ids = (
        (await knex('inbox_threads as t')
          .where((q) =>
            q
              .where('t.deleted_at', '<', before)
              .orWhereNotExists(knex('inbox_messages as m').whereRaw('m.thread_id = t.id').select(knex.raw('1'))),
          )
          .where('t.created_at', '<', before)
          .limit(BATCH)
          .select('t.id')) as Array<{ id: string }>
      ).map((row) => row.id);
      if (ids.length === 0) break;
      await knex.transaction(async (trx) => {
        await trx('inbox_messages').whereIn('thread_id', ids).delete();
        await trx('inbox_thread_labels').whereIn('thread_id', ids).delete();
        await trx('inbox_thread_actions').whereIn('thread_id', ids).delete();
        await trx('inbox_threads').whereIn('id', ids).delete();
      });
      threads += ids.length;
    }
    const drafts = await this.purgeDrafts(before);
    const inboxes = await this.purgeInboxes(before);
    return { messages, threads, drafts, inboxes };
  }

  /** References whose email is gone (the source table's retention removed it). */
  private async deleteOrphans(direction: 'inbound' | 'outbound', source: string): Promise<number> {
    const { knex } = this.deps;
    let deleted = 0;
    for (;;) {
      const rows = (await knex('inbox_messages as m')
        .where('m.direction', direction)
        .whereNotExists(knex(`${source} as s`).whereRaw('s.id = m.id').select(knex.raw('1')))
        .limit(BATCH)
        .select('m.inbox_id', 'm.id')) as Array<{ inbox_id: string; id: string }>;
      if (rows.length === 0) return deleted;
      for (const row of rows) await knex('inbox_messages').where(row).delete();
      deleted += rows.length;
    }
  }

  /** Drafts deleted or sent long ago, and their files. */
  private async purgeDrafts(before: Date): Promise<number> {
    const { knex, blobs } = this.deps;
    let deleted = 0;
    for (;;) {
      const rows = (await knex('inbox_drafts')
        .where((q) =>
          q
            .where('deleted_at', '<', before)
            .orWhere((sent) => sent.whereNotNull('email_id').where('updated_at', '<', before)),
        )
        .limit(BATCH)
        .select('id', 'attachments')) as Array<{ id: string; attachments: unknown }>;
      if (rows.length === 0) return deleted;
      for (const row of rows)
        for (const file of readJson<DraftFile[]>(row.attachments, [])) await blobs.delete('inbox-drafts', file.blob);
      await knex('inbox_drafts')
        .whereIn(
          'id',
          rows.map((row) => row.id),
        )
        .delete();
      deleted += rows.length;
    }
  }

  /** Inboxes deleted long ago: their labels, drafts and threads go with them. */
  private async purgeInboxes(before: Date): Promise<number> {
    const { knex } = this.deps;
    const ids = ((await knex('inboxes').where('deleted_at', '<', before).select('id')) as Array<{ id: string }>).map(
      (row) => row.id,
    );
    for (const id of ids)
      await knex.transaction(async (trx) => {
        const threadIds = trx('inbox_threads').where({ inbox_id: id }).select('id');
        await trx('inbox_thread_labels').whereIn('thread_id', threadIds).delete();
        await trx('inbox_thread_actions').where({ inbox_id: id }).delete();
        await trx('inbox_messages').where({ inbox_id: id }).delete();
        await trx('inbox_threads').where({ inbox_id: id }).delete();
        await trx('inbox_labels').where({ inbox_id: id }).delete();
        await trx('inbox_drafts')
          .where({ inbox_id: id })
          .update({ deleted_at: trx.raw('coalesce(deleted_at, ?)', [before]) });
        await trx('inboxes').where({ id }).delete();
      });
    return ids.length;
  }
}
