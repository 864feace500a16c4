import type { Knex } from 'knex';
import type { Subscription } from '../topics/topic.types.js';

/** A contact's own topic choices; a topic without a row falls back to its default. */
export class ContactTopicsRepository {
  constructor(private readonly knex: Knex) {}

  async choicesOf(contactId: string): Promise<Map<string, Subscription>> {
    const rows = (await this.knex('contact_topics')
      .where({ contact_id: contactId })
      .select('topic_id', 'subscription')) as Array<{ topic_id: string; subscription: string }>;
    return new Map(rows.map((row) => [row.topic_id, row.subscription as Subscription]));
  }

  async setChoices(
    teamId: string,
    contactId: string,
    choices: Array<{ topicId: string; subscription: Subscription }>,
    at: Date,
    fresh = false,
  ): Promise<void> {
    if (choices.length === 0) return;
    // A contact created in this transaction has no choices yet (see ContactRepository.writeValues).
    if (!fresh)
      await this.knex('contact_topics')
        .where({ contact_id: contactId })
        .whereIn(
          'topic_id',
          choices.map((c) => c.topicId),
        )
        .delete();
    await this.knex('contact_topics').insert(
      choices.map((c) => ({
        contact_id: contactId,
        topic_id: c.topicId,
        team_id: teamId,
        subscription: c.subscription,
        updated_at: at,
      })),
    );
  }
}
