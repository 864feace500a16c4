import type { Knex } from 'knex';
import { readTimestamp, whereContains, whereStartsWith } from '../../../db/dialect.js';
import { paginateNewestFirst } from '../../shared/pagination/list-query.js';
import { normalizeEmail } from '../../shared/addresses/email-address.js';
import type { ListSuppressionsQuery } from './suppression.schemas.js';
import type { Suppression, SuppressionOrigin } from './suppression.types.js';

type Row = {
  id: string;
  team_id: string;
  email: string;
  origin: string;
  source_id: string | null;
  created_at: unknown;
};

const toSuppression = (row: Row): Suppression => ({
  id: row.id,
  teamId: row.team_id,
  email: row.email,
  origin: row.origin as SuppressionOrigin,
  sourceId: row.source_id,
  createdAt: readTimestamp(row.created_at),
});

export const pairKey = (teamId: string, emailNormalized: string) => `${teamId} ${emailNormalized}`;

export class SuppressionRepository {
  constructor(private readonly knex: Knex) {}

  async insert(s: Suppression): Promise<void> {
    await this.knex('suppressions').insert({
      id: s.id,
      team_id: s.teamId,
      email: s.email,
      email_normalized: normalizeEmail(s.email),
      origin: s.origin,
      source_id: s.sourceId,
      created_at: s.createdAt,
    });
  }

  async findById(teamId: string, id: string): Promise<Suppression | undefined> {
    const row = (await this.knex('suppressions').where({ team_id: teamId, id }).first()) as Row | undefined;
    return row ? toSuppression(row) : undefined;
  }

  async findByEmails(teamId: string, emails: string[]): Promise<Suppression[]> {
    if (emails.length === 0) return [];
    const rows = (await this.knex('suppressions')
      .where({ team_id: teamId })
      .whereIn('email_normalized', emails.map(normalizeEmail))) as Row[];
    return rows.map(toSuppression);
  }

  /** Which of these (team, normalized address) pairs are suppressed: one query for many teams' look-ups. */
  async suppressedPairs(pairs: Array<{ teamId: string; emailNormalized: string }>): Promise<Set<string>> {
    if (pairs.length === 0) return new Set();
    const teams = [...new Set(pairs.map((p) => p.teamId))];
    const emails = [...new Set(pairs.map((p) => p.emailNormalized))];
    // A superset (every team x every address) by the (team_id, email_normalized) index, narrowed here.
    const rows = (await this.knex('suppressions')
      .select('team_id', 'email_normalized')
      .whereIn('team_id', teams)
      .whereIn('email_normalized', emails)) as Array<{ team_id: string; email_normalized: string }>;
    return new Set(rows.map((row) => pairKey(row.team_id, row.email_normalized)));
  }

  async findByIds(teamId: string, ids: string[]): Promise<Suppression[]> {
    if (ids.length === 0) return [];
    return ((await this.knex('suppressions').where({ team_id: teamId }).whereIn('id', ids)) as Row[]).map(
      toSuppression,
    );
  }

  async deleteIds(ids: string[]): Promise<void> {
    if (ids.length > 0) await this.knex('suppressions').whereIn('id', ids).delete();
  }

  async list(
    teamId: string,
    filter: ListSuppressionsQuery,
  ): Promise<{ suppressions: Suppression[]; hasMore: boolean }> {
    const query = this.knex('suppressions').where({ team_id: teamId });
    if (filter.origin) query.where('origin', filter.origin);
    if (filter.search) whereContains(query, ['email_normalized'], filter.search);
    // On the (team_id, email_normalized) unique index: an equality, and a range for the prefix.
    if (filter.email) query.where('email_normalized', normalizeEmail(filter.email));
    if (filter.q) whereStartsWith(query, 'email_normalized', filter.q, { lowerCased: true });
    if (filter.start_date) query.where('created_at', '>=', filter.start_date);
    if (filter.end_date) query.where('created_at', '<=', filter.end_date);
    const { rows, hasMore } = await paginateNewestFirst<Row>(query, filter);
    return { suppressions: rows.map(toSuppression), hasMore };
  }
}
