import type { Knex } from 'knex';
import { CONTACT_COLUMNS, toContact, type ContactRow } from '../audience/contacts/contact.repository.js';
import type { Contact } from '../audience/contacts/contact.types.js';
import { CustomEventRepository } from './custom-event.repository.js';
import type { CustomEventDefinition } from './custom-event.types.js';

type Pending<V> = {
  team: string;
  key: string;
  resolve: (value: V | undefined) => void;
  reject: (err: unknown) => void;
};

/**
 * Look-ups of concurrent requests, gathered for one event-loop turn and answered by one query
 * per team: what a group commit is to writes, this is to the two reads every POST /events/send
 * makes (its definition by name, its contact by id). Each request still reads after it arrived,
 * so an answer is as fresh as a query of its own; only the round trips and the statements are
 * shared (at 64 clients, dozens of sends per query).
 */
class LookupBatch<V> {
  private pending: Array<Pending<V>> = [];

  constructor(private readonly load: (team: string, keys: string[]) => Promise<Map<string, V>>) {}

  get(team: string, key: string): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => void this.flush());
      this.pending.push({ team, key, resolve, reject });
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    const byTeam = new Map<string, Array<Pending<V>>>();
    for (const item of batch) byTeam.set(item.team, [...(byTeam.get(item.team) ?? []), item]);
    await Promise.all(
      [...byTeam].map(async ([team, items]) => {
        try {
          const found = await this.load(team, [...new Set(items.map((i) => i.key))]);
          for (const item of items) item.resolve(found.get(item.key));
        } catch (err) {
          for (const item of items) item.reject(err);
        }
      }),
    );
  }
}

/** Ids or names per IN (...) list: under SQLite's bound-parameter limit. */
const IN_CHUNK = 500;

/** The shared reads of POST /events/send (CustomEventService.send). */
export class SendLookups {
  private readonly definitions: LookupBatch<CustomEventDefinition>;
  private readonly contacts: LookupBatch<Contact>;

  constructor(knex: Knex) {
    this.definitions = new LookupBatch(async (teamId, names) => {
      const found = new Map<string, CustomEventDefinition>();
      for (let i = 0; i < names.length; i += IN_CHUNK)
        for (const [name, d] of await new CustomEventRepository(knex).findByNames(teamId, names.slice(i, i + IN_CHUNK)))
          found.set(name, d);
      return found;
    });
    this.contacts = new LookupBatch(async (teamId, ids) => {
      const found = new Map<string, Contact>();
      for (let i = 0; i < ids.length; i += IN_CHUNK) {
        const rows = (await knex('contacts')
          .where('team_id', teamId)
          .whereIn('id', ids.slice(i, i + IN_CHUNK))
          .select(...CONTACT_COLUMNS)) as ContactRow[];
        for (const row of rows) found.set(row.id, toContact(row));
      }
      return found;
    });
  }

  /** The team's live definition named `name` (a valid event name). */
  definition(teamId: string, name: string): Promise<CustomEventDefinition | undefined> {
    return this.definitions.get(teamId, name);
  }

  /** The team's contact with this id (a lower-case UUID). */
  contact(teamId: string, id: string): Promise<Contact | undefined> {
    return this.contacts.get(teamId, id);
  }
}
