import type { Knex } from 'knex';
import { readNullableTimestamp, readTimestamp } from '../../db/dialect.js';
import { NOT_A_CHANGE } from '../../db/write-watcher.js';
import { paginateNewestFirst, type PageQuery } from '../shared/pagination/list-query.js';
import type { OAuthGrant } from './oauth.types.js';

type GrantRow = {
  id: string;
  client_id: string;
  team_id: string;
  user_id: string | null;
  scope: string;
  resource: string | null;
  created_at: unknown;
  last_used_at: unknown;
  revoked_at: unknown;
  client_name?: string | null;
  client_logo_uri?: string | null;
};

/** A grant as the team's list shows it: with its client's name and logo. */
export type GrantWithClient = OAuthGrant & { clientName: string; clientLogoUri: string | null };

function toGrant(row: GrantRow): OAuthGrant {
  return {
    id: row.id,
    clientId: row.client_id,
    teamId: row.team_id,
    userId: row.user_id,
    scopes: row.scope.split(' ').filter(Boolean),
    resource: row.resource ?? null,
    createdAt: readTimestamp(row.created_at),
    lastUsedAt: readNullableTimestamp(row.last_used_at),
    revokedAt: readNullableTimestamp(row.revoked_at),
  };
}

export class OAuthGrantRepository {
  constructor(private readonly knex: Knex) {}

  async insert(grant: OAuthGrant, trx: Knex = this.knex): Promise<void> {
    await trx('oauth_grants').insert({
      id: grant.id,
      client_id: grant.clientId,
      team_id: grant.teamId,
      user_id: grant.userId,
      scope: grant.scopes.join(' '),
      resource: grant.resource,
      created_at: grant.createdAt,
    });
  }

  async find(id: string, trx: Knex = this.knex): Promise<OAuthGrant | undefined> {
    const row = (await trx('oauth_grants').where({ id }).first()) as GrantRow | undefined;
    return row ? toGrant(row) : undefined;
  }

  /**
   * A team's live grants with their client's name and logo, newest first: those whose code was exchanged
   * (an approval the client never completed gave it nothing to list).
   */
  async listLive(teamId: string, page: PageQuery): Promise<{ grants: GrantWithClient[]; hasMore: boolean }> {
    const query = this.knex('oauth_grants')
      .join('oauth_clients', 'oauth_clients.id', 'oauth_grants.client_id')
      .select('oauth_grants.*', 'oauth_clients.client_name', 'oauth_clients.logo_uri as client_logo_uri')
      .where('oauth_grants.team_id', teamId)
      .whereNull('oauth_grants.revoked_at')
      .whereExists(this.knex('oauth_tokens').select('grant_id').whereRaw('oauth_tokens.grant_id = oauth_grants.id'));
    const { rows, hasMore } = await paginateNewestFirst<GrantRow>(query, page, 'oauth_grants.id');
    const grants = rows.map((row) => ({
      ...toGrant(row),
      clientName: row.client_name ?? '',
      clientLogoUri: row.client_logo_uri ?? null,
    }));
    return { grants, hasMore };
  }

  async findLiveInTeam(teamId: string, id: string): Promise<OAuthGrant | undefined> {
    const row = (await this.knex('oauth_grants').where({ team_id: teamId, id }).whereNull('revoked_at').first()) as
      GrantRow | undefined;
    return row ? toGrant(row) : undefined;
  }

  /** Ends grants (by id, or every grant of a client) and every token under them. */
  async revoke(where: { id: string } | { clientId: string }, at: Date, trx: Knex = this.knex): Promise<void> {
    const grants = trx('oauth_grants').whereNull('revoked_at');
    if ('id' in where) grants.where('id', where.id);
    else grants.where('client_id', where.clientId);
    const ids = ((await grants.clone().select('id')) as Array<{ id: string }>).map((row) => row.id);
    if (ids.length === 0) return;
    await trx('oauth_grants').whereIn('id', ids).update({ revoked_at: at });
    await trx('oauth_tokens').whereIn('grant_id', ids).whereNull('revoked_at').update({ revoked_at: at });
  }

  /** last_used_at, at most once a minute per grant (not a change the lookup cache must forget). */
  async touch(id: string, at: Date): Promise<void> {
    await this.knex('oauth_grants').where({ id }).update({ last_used_at: at }).queryContext(NOT_A_CHANGE);
  }
}
