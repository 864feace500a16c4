import type { Knex } from 'knex';
import { readBoolean, readJson, readNullableTimestamp, readTimestamp, writeJson } from '../../db/dialect.js';
import { paginateNewestFirst, type PageQuery } from '../shared/pagination/list-query.js';
import type { AgentAction, AgentTone, Inbox, InboxCounts } from './inbox.types.js';

const TABLE = 'inboxes';

type Row = {
  id: string;
  team_id: string;
  domain_id: string;
  email_address: string;
  name: string | null;
  from_name: string | null;
  forwarding: unknown;
  agent_instructions: string | null;
  agent_tone: string | null;
  agent_actions: unknown;
  created_at: unknown;
  updated_at: unknown;
};

const toInbox = (row: Row): Inbox => ({
  id: row.id,
  teamId: row.team_id,
  domainId: row.domain_id,
  emailAddress: row.email_address,
  name: row.name,
  fromName: row.from_name,
  forwarding: readBoolean(row.forwarding),
  agent: {
    instructions: row.agent_instructions,
    tone: row.agent_tone as AgentTone | null,
    actions: readJson<AgentAction[]>(row.agent_actions, []),
  },
  createdAt: readTimestamp(row.created_at),
  updatedAt: readTimestamp(row.updated_at),
});

/** Live inboxes (a deleted one answers 404 and its address is free again). */
export class InboxRepository {
  constructor(private readonly knex: Knex) {}

  private live(db: Knex = this.knex) {
    return db(TABLE).whereNull('deleted_at');
  }

  async insert(inbox: Inbox): Promise<void> {
    await this.knex(TABLE).insert({
      id: inbox.id,
      team_id: inbox.teamId,
      domain_id: inbox.domainId,
      email_address: inbox.emailAddress,
      live_address: inbox.emailAddress,
      name: inbox.name,
      from_name: inbox.fromName,
      forwarding: inbox.forwarding,
      agent_instructions: inbox.agent.instructions,
      agent_tone: inbox.agent.tone,
      agent_actions: writeJson(inbox.agent.actions),
      created_at: inbox.createdAt,
      updated_at: inbox.updatedAt,
    });
  }

  async findById(teamId: string, id: string): Promise<Inbox | undefined> {
    const row = (await this.live().where({ team_id: teamId, id }).first()) as Row | undefined;
    return row ? toInbox(row) : undefined;
  }

  async findByAddress(teamId: string, address: string): Promise<Inbox | undefined> {
    const row = (await this.live().where({ team_id: teamId, live_address: address }).first()) as Row | undefined;
    return row ? toInbox(row) : undefined;
  }

  async addressTaken(address: string): Promise<boolean> {
    return Boolean(await this.live().where({ live_address: address }).first('id'));
  }

  /** The live inboxes at these addresses (lower-cased), in any team: the MX's routing of received mail. */
  async atAddresses(db: Knex, addresses: string[]): Promise<Inbox[]> {
    if (addresses.length === 0) return [];
    const rows = (await this.live(db).whereIn('live_address', addresses)) as Row[];
    return rows.map(toInbox);
  }

  async update(id: string, changes: Partial<Record<string, unknown>>, at: Date): Promise<boolean> {
    const changed = await this.live()
      .where({ id })
      .update({ ...changes, updated_at: at });
    return changed > 0;
  }

  async softDelete(id: string, at: Date): Promise<boolean> {
    const changed = await this.live().where({ id }).update({ deleted_at: at, live_address: null, updated_at: at });
    return changed > 0;
  }

  async list(teamId: string, page: PageQuery) {
    const { rows, hasMore } = await paginateNewestFirst<Row>(this.live().where({ team_id: teamId }), page);
    return { inboxes: rows.map(toInbox), hasMore };
  }

  /** Unread threads, open drafts and the newest received message of each inbox, in three queries. */
  async counts(inboxIds: string[]): Promise<Map<string, InboxCounts>> {
    const counts = new Map<string, InboxCounts>(
      inboxIds.map((id) => [id, { unread: 0, drafts: 0, lastReceived: null }]),
    );
    if (inboxIds.length === 0) return counts;
    const unread = (await this.knex('inbox_threads')
      .whereIn('inbox_id', inboxIds)
      .whereNull('deleted_at')
      .where({ read: false })
      .whereNot({ folder: 'trash' })
      .groupBy('inbox_id')
      .select('inbox_id', this.knex.raw('count(*) as n'))) as Array<{ inbox_id: string; n: unknown }>;
    for (const row of unread) counts.get(row.inbox_id)!.unread = Number(row.n);
    const drafts = (await this.knex('inbox_drafts')
      .whereIn('inbox_id', inboxIds)
      .whereNull('deleted_at')
      .whereNull('email_id')
      .groupBy('inbox_id')
      .select('inbox_id', this.knex.raw('count(*) as n'))) as Array<{ inbox_id: string; n: unknown }>;
    for (const row of drafts) counts.get(row.inbox_id)!.drafts = Number(row.n);
    const last = (await this.knex('inbox_messages')
      .whereIn('inbox_id', inboxIds)
      .where({ direction: 'inbound' })
      .groupBy('inbox_id')
      .select('inbox_id', this.knex.raw('max(received_at) as at'))) as Array<{ inbox_id: string; at: unknown }>;
    for (const row of last) counts.get(row.inbox_id)!.lastReceived = readNullableTimestamp(row.at);
    return counts;
  }
}
