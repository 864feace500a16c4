import type { Knex } from 'knex';
import { readJson, readNullableTimestamp, readTimestamp } from '../../../db/dialect.js';
import type { EventType } from '../log/event.types.js';
import { paginateNewestFirst, type PageQuery } from '../../shared/pagination/list-query.js';
import type { DisabledReason, EndpointStatus, WebhookEndpoint } from './webhook.types.js';

type Row = Record<string, unknown>;

const toEndpoint = (row: Row): WebhookEndpoint => ({
  id: String(row.id),
  teamId: String(row.team_id),
  url: String(row.url),
  events: readJson<EventType[]>(row.events, []),
  status: row.status as EndpointStatus,
  disabledReason: (row.disabled_reason as DisabledReason | null) ?? null,
  secretSealed: String(row.secret_sealed),
  previousSecretSealed: (row.previous_secret_sealed as string | null) ?? null,
  previousSecretExpiresAt: readNullableTimestamp(row.previous_secret_expires_at),
  failingSince: readNullableTimestamp(row.failing_since),
  createdAt: readTimestamp(row.created_at),
  updatedAt: readTimestamp(row.updated_at),
});

export type EndpointChanges = Partial<
  Pick<
    WebhookEndpoint,
    | 'url'
    | 'events'
    | 'status'
    | 'disabledReason'
    | 'secretSealed'
    | 'previousSecretSealed'
    | 'previousSecretExpiresAt'
    | 'failingSince'
    | 'updatedAt'
  >
>;

function toRow(changes: EndpointChanges): Row {
  const row: Row = {};
  if (changes.url !== undefined) row.url = changes.url;
  if (changes.events !== undefined) row.events = JSON.stringify(changes.events);
  if (changes.status !== undefined) row.status = changes.status;
  if (changes.disabledReason !== undefined) row.disabled_reason = changes.disabledReason;
  if (changes.secretSealed !== undefined) row.secret_sealed = changes.secretSealed;
  if (changes.previousSecretSealed !== undefined) row.previous_secret_sealed = changes.previousSecretSealed;
  if (changes.previousSecretExpiresAt !== undefined) row.previous_secret_expires_at = changes.previousSecretExpiresAt;
  if (changes.failingSince !== undefined) row.failing_since = changes.failingSince;
  if (changes.updatedAt !== undefined) row.updated_at = changes.updatedAt;
  return row;
}

export class WebhookEndpointRepository {
  constructor(private readonly knex: Knex) {}

  async insert(endpoint: WebhookEndpoint): Promise<void> {
    await this.knex('webhook_endpoints').insert({
      id: endpoint.id,
      team_id: endpoint.teamId,
      created_at: endpoint.createdAt,
      ...toRow({ ...endpoint, failingSince: null }),
    });
  }

  async findInTeam(teamId: string, id: string): Promise<WebhookEndpoint | undefined> {
    const row = (await this.knex('webhook_endpoints').where({ team_id: teamId, id }).first()) as Row | undefined;
    return row ? toEndpoint(row) : undefined;
  }

  async find(id: string): Promise<WebhookEndpoint | undefined> {
    const row = (await this.knex('webhook_endpoints').where({ id }).first()) as Row | undefined;
    return row ? toEndpoint(row) : undefined;
  }

  async listForTeam(teamId: string, page: PageQuery): Promise<{ endpoints: WebhookEndpoint[]; hasMore: boolean }> {
    const { rows, hasMore } = await paginateNewestFirst<Row>(
      this.knex('webhook_endpoints').where({ team_id: teamId }),
      page,
    );
    return { endpoints: rows.map(toEndpoint), hasMore };
  }

  async countForTeam(teamId: string): Promise<number> {
    const row = (await this.knex('webhook_endpoints').where({ team_id: teamId }).count({ n: '*' }).first()) as
      { n: number | string } | undefined;
    return Number(row?.n ?? 0);
  }

  /** The team's enabled endpoints, id and subscriptions only: read once per recorded event. */
  async enabledForTeam(teamId: string): Promise<Array<{ id: string; events: EventType[] }>> {
    const rows = (await this.knex('webhook_endpoints')
      .select('id', 'events')
      .where({ team_id: teamId, status: 'enabled' })) as Row[];
    return rows.map((row) => ({ id: String(row.id), events: readJson<EventType[]>(row.events, []) }));
  }

  async update(id: string, changes: EndpointChanges): Promise<void> {
    await this.knex('webhook_endpoints').where({ id }).update(toRow(changes));
  }

  /** Disables an enabled endpoint; false when it was not enabled (any more). */
  async disable(id: string, reason: DisabledReason, now: Date): Promise<boolean> {
    return (
      (await this.knex('webhook_endpoints')
        .where({ id, status: 'enabled' })
        .update({ status: 'disabled', disabled_reason: reason, updated_at: now })) === 1
    );
  }

  async delete(id: string): Promise<void> {
    await this.knex('webhook_endpoints').where({ id }).delete();
  }

  /**
   * Starts a run of failures unless one is going; returns when the run started and whether the
   * endpoint is still enabled (it may have been disabled while this attempt was in flight).
   */
  async markFailing(id: string, now: Date): Promise<{ since: Date | null; enabled: boolean }> {
    await this.knex('webhook_endpoints').where({ id }).whereNull('failing_since').update({ failing_since: now });
    const row = (await this.knex('webhook_endpoints').select('failing_since', 'status').where({ id }).first()) as
      Row | undefined;
    return { since: readNullableTimestamp(row?.failing_since), enabled: row?.status === 'enabled' };
  }

  async clearFailing(id: string): Promise<void> {
    await this.knex('webhook_endpoints').where({ id }).whereNotNull('failing_since').update({ failing_since: null });
  }
}
