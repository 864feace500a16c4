import type { Knex } from 'knex';
import { readBoolean, readJson, readNullableTimestamp, readTimestamp, writeJson } from '../../../db/dialect.js';
import { paginateNewestFirst, type PageQuery } from '../../shared/pagination/list-query.js';
import type { Region } from '../../platform/teams/team.types.js';
import type { DkimKey, DkimKeyState, Domain, DomainStatus, RecordStatus } from './domain.types.js';

type Row = Record<string, unknown>;

function toDomain(row: Row): Domain {
  return {
    id: String(row.id),
    teamId: String(row.team_id),
    name: String(row.name),
    zone: String(row.zone),
    region: row.region as Region,
    status: row.status as DomainStatus,
    openTracking: readBoolean(row.open_tracking),
    clickTracking: readBoolean(row.click_tracking),
    trackingSubdomain: String(row.tracking_subdomain),
    customReturnPath: String(row.custom_return_path),
    receivingHost: String(row.receiving_host),
    tls: row.tls as Domain['tls'],
    sendingEnabled: readBoolean(row.sending_enabled),
    receivingEnabled: readBoolean(row.receiving_enabled),
    recordStatuses: readJson<Record<string, RecordStatus>>(row.record_statuses, {}),
    createdAt: readTimestamp(row.created_at),
    updatedAt: readTimestamp(row.updated_at),
    verifiedAt: readNullableTimestamp(row.verified_at),
    verificationStartedAt: readNullableTimestamp(row.verification_started_at),
    lastCheckedAt: readNullableTimestamp(row.last_checked_at),
    nextCheckAt: readNullableTimestamp(row.next_check_at),
    checkAttempts: Number(row.check_attempts ?? 0),
    managed: readBoolean(row.managed ?? false),
  };
}

function toRow(domain: Partial<Domain>): Row {
  const map: Array<[keyof Domain, string, (v: never) => unknown]> = [
    ['id', 'id', (v) => v],
    ['teamId', 'team_id', (v) => v],
    ['name', 'name', (v) => v],
    ['zone', 'zone', (v) => v],
    ['region', 'region', (v) => v],
    ['status', 'status', (v) => v],
    ['openTracking', 'open_tracking', (v) => v],
    ['clickTracking', 'click_tracking', (v) => v],
    ['trackingSubdomain', 'tracking_subdomain', (v) => v],
    ['customReturnPath', 'custom_return_path', (v) => v],
    ['receivingHost', 'receiving_host', (v) => v],
    ['tls', 'tls', (v) => v],
    ['sendingEnabled', 'sending_enabled', (v) => v],
    ['receivingEnabled', 'receiving_enabled', (v) => v],
    ['recordStatuses', 'record_statuses', (v) => writeJson(v)],
    ['createdAt', 'created_at', (v) => v],
    ['updatedAt', 'updated_at', (v) => v],
    ['verifiedAt', 'verified_at', (v) => v],
    ['verificationStartedAt', 'verification_started_at', (v) => v],
    ['lastCheckedAt', 'last_checked_at', (v) => v],
    ['nextCheckAt', 'next_check_at', (v) => v],
    ['checkAttempts', 'check_attempts', (v) => v],
    ['managed', 'managed', (v) => v],
  ];
  const row: Row = {};
  for (const [key, column, convert] of map) if (domain[key] !== undefined) row[column] = convert(domain[key] as never);
  return row;
}

function toKey(row: Row): DkimKey {
  return {
    id: String(row.id),
    domainId: String(row.domain_id),
    selector: String(row.selector),
    algorithm: row.algorithm as DkimKey['algorithm'],
    publicKey: String(row.public_key),
    privateKeySealed: String(row.private_key_sealed),
    state: row.state as DkimKeyState,
    createdAt: readTimestamp(row.created_at),
    activatedAt: readNullableTimestamp(row.activated_at),
    retiredAt: readNullableTimestamp(row.retired_at),
  };
}

export class DomainRepository {
  constructor(private readonly knex: Knex) {}

  async insert(domain: Domain): Promise<void> {
    await this.knex('domains').insert(toRow(domain));
  }

  async update(id: string, changes: Partial<Domain>): Promise<void> {
    await this.knex('domains').where({ id }).update(toRow(changes));
  }

  async delete(id: string): Promise<void> {
    await this.knex('domains').where({ id }).delete();
  }

  async findInTeam(teamId: string, id: string): Promise<Domain | undefined> {
    const row = (await this.knex('domains').where({ team_id: teamId, id }).first()) as Row | undefined;
    return row ? toDomain(row) : undefined;
  }

  async findById(id: string): Promise<Domain | undefined> {
    const row = (await this.knex('domains').where({ id }).first()) as Row | undefined;
    return row ? toDomain(row) : undefined;
  }

  async findByName(name: string): Promise<Domain[]> {
    return ((await this.knex('domains').where({ name })) as Row[]).map(toDomain);
  }

  async listForTeam(teamId: string, page: PageQuery): Promise<{ domains: Domain[]; hasMore: boolean }> {
    const { rows, hasMore } = await paginateNewestFirst<Row>(this.knex('domains').where({ team_id: teamId }), page);
    return { domains: rows.map(toDomain), hasMore };
  }

  async allForTeam(teamId: string): Promise<Domain[]> {
    return ((await this.knex('domains').where({ team_id: teamId }).orderBy('id')) as Row[]).map(toDomain);
  }

  async countForTeam(teamId: string): Promise<number> {
    const [row] = (await this.knex('domains').where({ team_id: teamId }).count({ n: '*' })) as Array<{
      n: number | string;
    }>;
    return Number(row?.n ?? 0);
  }

  async dueForCheck(now: Date, limit: number): Promise<Domain[]> {
    const rows = (await this.knex('domains')
      .whereNotNull('next_check_at')
      .where('next_check_at', '<=', now)
      .orderBy('next_check_at')
      .limit(limit)) as Row[];
    return rows.map(toDomain);
  }

  async insertKey(key: DkimKey): Promise<void> {
    await this.knex('dkim_keys').insert({
      id: key.id,
      domain_id: key.domainId,
      selector: key.selector,
      algorithm: key.algorithm,
      public_key: key.publicKey,
      private_key_sealed: key.privateKeySealed,
      state: key.state,
      created_at: key.createdAt,
      activated_at: key.activatedAt,
      retired_at: key.retiredAt,
    });
  }

  async keysOf(domainId: string): Promise<DkimKey[]> {
    return ((await this.knex('dkim_keys').where({ domain_id: domainId }).orderBy('id')) as Row[]).map(toKey);
  }

  async setKeyState(id: string, state: DkimKeyState, now: Date): Promise<void> {
    const changes: Row = { state };
    if (state === 'active') changes.activated_at = now;
    if (state === 'retired') changes.retired_at = now;
    await this.knex('dkim_keys').where({ id }).update(changes);
  }
}
