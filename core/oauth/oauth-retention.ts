import type { Knex } from 'knex';
import type { Clock } from '../../lib/clock.js';

const DAY_MS = 86_400_000;
/** Rotated refresh tokens are kept this long so a replay still revokes its grant. */
export const ROTATED_REFRESH_KEEP_DAYS = 30;

/**
 * Retention of the OAuth tables (every growing table has one). What goes, and why it is safe:
 * - codes a day past expiry: none can be exchanged any more;
 * - access tokens a day past expiry: they only ever answer 401;
 * - refresh tokens rotated or revoked 30 days ago: a replay after that is an unknown token
 *   (invalid_grant) rather than a revocation of the grant;
 * - grants never completed (no token, created a day ago) and grants revoked 30 days ago, with
 *   what is left under them;
 * - clients deleted 30 days ago (their registrations no longer count toward any limit).
 */
export class OAuthRetention {
  constructor(private readonly deps: { knex: Knex; clock: Clock }) {}

  async purge(): Promise<Record<string, number>> {
    const { knex } = this.deps;
    const now = this.deps.clock.now().getTime();
    const dayAgo = new Date(now - DAY_MS);
    const monthAgo = new Date(now - ROTATED_REFRESH_KEEP_DAYS * DAY_MS);
    const codes = await knex('oauth_codes').where('expires_at', '<', dayAgo).delete();
    const accessTokens = await knex('oauth_tokens').where({ kind: 'access' }).where('expires_at', '<', dayAgo).delete();
    const refreshTokens = await knex('oauth_tokens')
      .where({ kind: 'refresh' })
      .where('revoked_at', '<', monthAgo)
      .delete();
    const ended = knex('oauth_grants')
      .where('revoked_at', '<', monthAgo)
      .orWhere((never) =>
        never
          .where('created_at', '<', dayAgo)
          .whereNotExists(knex('oauth_tokens').select('grant_id').whereRaw('oauth_tokens.grant_id = oauth_grants.id')),
      );
    const ids = ((await ended.select('id')) as Array<{ id: string }>).map((row) => row.id);
    let grants = 0;
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      await knex('oauth_tokens').whereIn('grant_id', chunk).delete();
      await knex('oauth_codes').whereIn('grant_id', chunk).delete();
      grants += await knex('oauth_grants').whereIn('id', chunk).delete();
    }
    const clients = await knex('oauth_clients').where('deleted_at', '<', monthAgo).delete();
    return { codes, access_tokens: accessTokens, refresh_tokens: refreshTokens, grants, clients };
  }
}
