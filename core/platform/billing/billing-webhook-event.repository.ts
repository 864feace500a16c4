import type { Knex } from 'knex';

/** billing_webhook_events: the ids of provider events already applied. */
export class BillingWebhookEventRepository {
  constructor(private readonly knex: Knex) {}

  async isProcessed(id: string, db: Knex = this.knex): Promise<boolean> {
    return Boolean(await db('billing_webhook_events').where({ id }).first('id'));
  }

  /** Records the event in the transaction that applies it (a concurrent twin fails on the primary key). */
  async record(db: Knex, event: { id: string; provider: string; type: string }, now: Date): Promise<void> {
    await db('billing_webhook_events').insert({
      id: event.id,
      provider: event.provider,
      type: event.type.slice(0, 100),
      processed_at: now,
    });
  }

  async purgeBefore(cutoff: Date): Promise<number> {
    return this.knex('billing_webhook_events').where('processed_at', '<', cutoff).delete();
  }
}
