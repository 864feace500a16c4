import type { Knex } from 'knex';
import { readBoolean, readNullableTimestamp, readTimestamp } from '../../db/dialect.js';
import { paginateNewestFirst, type PageQuery } from '../shared/pagination/list-query.js';
import type { SsoConfiguration, SsoSignIn } from './sso.types.js';

type ConfigRow = {
  id: string;
  team_id: string;
  issuer: string;
  client_id: string;
  client_secret_sealed: string;
  active: unknown;
  enforced: unknown;
  tested_at: unknown;
  activated_at: unknown;
  last_error: string | null;
  last_error_at: unknown;
  last_sign_in_at: unknown;
  created_at: unknown;
  updated_at: unknown;
};

type SignInRow = {
  id: string;
  team_id: string;
  user_id: string | null;
  email: string | null;
  name: string | null;
  outcome: string;
  error: string | null;
  created_at: unknown;
};

/** The columns a change may set (the secret only sealed). */
export type ConfigChanges = Partial<{
  issuer: string;
  client_id: string;
  client_secret_sealed: string;
  active: boolean;
  enforced: boolean;
  tested_at: Date | null;
  activated_at: Date | null;
  last_error: string | null;
  last_error_at: Date | null;
  last_sign_in_at: Date;
  updated_at: Date;
}>;

const toConfig = (row: ConfigRow, domains: string[]): SsoConfiguration => ({
  id: row.id,
  teamId: row.team_id,
  issuer: row.issuer,
  clientId: row.client_id,
  domains,
  active: readBoolean(row.active),
  enforced: readBoolean(row.enforced),
  testedAt: readNullableTimestamp(row.tested_at),
  activatedAt: readNullableTimestamp(row.activated_at),
  lastError: row.last_error,
  lastErrorAt: readNullableTimestamp(row.last_error_at),
  lastSignInAt: readNullableTimestamp(row.last_sign_in_at),
  createdAt: readTimestamp(row.created_at),
  updatedAt: readTimestamp(row.updated_at),
});

const toSignIn = (row: SignInRow): SsoSignIn => ({
  id: row.id,
  teamId: row.team_id,
  userId: row.user_id,
  email: row.email,
  name: row.name,
  outcome: row.outcome as SsoSignIn['outcome'],
  error: row.error as SsoSignIn['error'],
  createdAt: readTimestamp(row.created_at),
});

/** sso_configurations, sso_domains and sso_sign_ins; the sealed secret leaves only through `sealedSecret`. */
export class SsoRepository {
  constructor(private readonly knex: Knex) {}

  async findByTeam(teamId: string, trx: Knex = this.knex): Promise<SsoConfiguration | undefined> {
    const row = (await trx('sso_configurations').where({ team_id: teamId }).first()) as ConfigRow | undefined;
    return row ? toConfig(row, await this.domainsOf(teamId, trx)) : undefined;
  }

  /** The configuration covering an address's domain, whichever team it belongs to. */
  async findByDomain(domain: string): Promise<SsoConfiguration | undefined> {
    const owner = (await this.knex('sso_domains').where({ domain: domain.toLowerCase() }).first('team_id')) as
      { team_id: string } | undefined;
    return owner ? this.findByTeam(owner.team_id) : undefined;
  }

  async sealedSecret(teamId: string): Promise<string | undefined> {
    const row = (await this.knex('sso_configurations').where({ team_id: teamId }).first('client_secret_sealed')) as
      Pick<ConfigRow, 'client_secret_sealed'> | undefined;
    return row?.client_secret_sealed;
  }

  /** Which of `domains` another team's single sign-on covers already, and which team. */
  async coveredByOthers(teamId: string, domains: string[]): Promise<Array<{ domain: string; teamId: string }>> {
    const rows = (await this.knex('sso_domains')
      .whereIn('domain', domains)
      .whereNot({ team_id: teamId })
      .select('domain', 'team_id')) as Array<{ domain: string; team_id: string }>;
    return rows.map((row) => ({ domain: row.domain, teamId: row.team_id }));
  }

  /** Drops another team's stale coverage of domains it no longer has (claimed away since). */
  async release(domains: string[], trx: Knex): Promise<void> {
    if (domains.length > 0) await trx('sso_domains').whereIn('domain', domains).delete();
  }

  async insert(config: SsoConfiguration, sealed: string, trx: Knex): Promise<void> {
    await trx('sso_configurations').insert({
      id: config.id,
      team_id: config.teamId,
      issuer: config.issuer,
      client_id: config.clientId,
      client_secret_sealed: sealed,
      active: false,
      enforced: false,
      created_at: config.createdAt,
      updated_at: config.updatedAt,
    });
  }

  async update(teamId: string, changes: ConfigChanges, trx: Knex = this.knex): Promise<void> {
    await trx('sso_configurations').where({ team_id: teamId }).update(changes);
  }

  /** Replaces the covered domains (a domain another team holds fails on the primary key). */
  async setDomains(teamId: string, domains: string[], now: Date, trx: Knex): Promise<void> {
    await trx('sso_domains').where({ team_id: teamId }).delete();
    if (domains.length > 0)
      await trx('sso_domains').insert(domains.map((domain) => ({ domain, team_id: teamId, created_at: now })));
  }

  async delete(teamId: string, trx: Knex): Promise<void> {
    await trx('sso_domains').where({ team_id: teamId }).delete();
    await trx('sso_configurations').where({ team_id: teamId }).delete();
  }

  async recordSignIn(signIn: SsoSignIn, trx: Knex = this.knex): Promise<void> {
    await trx('sso_sign_ins').insert({
      id: signIn.id,
      team_id: signIn.teamId,
      user_id: signIn.userId,
      email: signIn.email,
      name: signIn.name,
      outcome: signIn.outcome,
      error: signIn.error,
      created_at: signIn.createdAt,
    });
  }

  async signIns(teamId: string, page: PageQuery): Promise<{ signIns: SsoSignIn[]; hasMore: boolean }> {
    const { rows, hasMore } = await paginateNewestFirst<SignInRow>(
      this.knex('sso_sign_ins').where({ team_id: teamId }),
      page,
    );
    return { signIns: rows.map(toSignIn), hasMore };
  }

  /** Retention: sign-in records created before `before`. */
  async deleteSignInsBefore(before: Date): Promise<number> {
    return this.knex('sso_sign_ins').where('created_at', '<', before).delete();
  }

  private async domainsOf(teamId: string, trx: Knex): Promise<string[]> {
    const rows = (await trx('sso_domains').where({ team_id: teamId }).orderBy('domain').select('domain')) as Array<{
      domain: string;
    }>;
    return rows.map((row) => row.domain);
  }
}
