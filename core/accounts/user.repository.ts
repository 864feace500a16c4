import type { Knex } from 'knex';
import { readNullableTimestamp, readTimestamp } from '../../db/dialect.js';
import type { User } from './account.types.js';

type UserRow = {
  id: string;
  email: string;
  name: string | null;
  password_hash: string | null;
  email_verified_at: unknown;
  created_at: unknown;
};

const toUser = (row: UserRow): User => ({
  id: row.id,
  email: row.email,
  name: row.name,
  emailVerifiedAt: readNullableTimestamp(row.email_verified_at),
  createdAt: readTimestamp(row.created_at),
});

/** The users table; the password hash leaves it only through `credentials`. */
export class UserRepository {
  constructor(private readonly knex: Knex) {}

  async insert(user: User & { passwordHash: string | null }, trx: Knex = this.knex): Promise<void> {
    await trx('users').insert({
      id: user.id,
      email: user.email,
      name: user.name,
      password_hash: user.passwordHash,
      email_verified_at: user.emailVerifiedAt,
      created_at: user.createdAt,
      updated_at: user.createdAt,
    });
  }

  async findById(id: string): Promise<User | undefined> {
    const row = (await this.knex('users').where({ id }).first()) as UserRow | undefined;
    return row ? toUser(row) : undefined;
  }

  async findByEmail(email: string, trx: Knex = this.knex): Promise<User | undefined> {
    const row = (await trx('users').where({ email: email.toLowerCase() }).first()) as UserRow | undefined;
    return row ? toUser(row) : undefined;
  }

  /** The user and stored password hash of an address, for login. */
  async credentials(email: string): Promise<{ user: User; passwordHash: string | null } | undefined> {
    const row = (await this.knex('users').where({ email: email.toLowerCase() }).first()) as UserRow | undefined;
    return row ? { user: toUser(row), passwordHash: row.password_hash } : undefined;
  }

  async passwordHash(id: string): Promise<string | null> {
    const row = (await this.knex('users').where({ id }).first('password_hash')) as UserRow | undefined;
    return row?.password_hash ?? null;
  }

  /**
   * Locks the user's row until `trx` ends (MySQL; SQLite has one writer anyway): password changes
   * of one user then run one after the other, each taking the user's row before any token row.
   */
  async lock(id: string, trx: Knex): Promise<void> {
    await trx('users').where({ id }).forUpdate().first('id');
  }

  async setPassword(id: string, passwordHash: string, now: Date, trx: Knex = this.knex): Promise<void> {
    await trx('users').where({ id }).update({ password_hash: passwordHash, updated_at: now });
  }

  /** Gives a user without a name this one (an operator's `user create --name`); a set name stays. */
  async nameIfUnnamed(id: string, name: string, now: Date, trx: Knex = this.knex): Promise<void> {
    await trx('users').where({ id }).whereNull('name').update({ name, updated_at: now });
  }

  async markVerified(id: string, now: Date, trx: Knex = this.knex): Promise<void> {
    await trx('users').where({ id }).whereNull('email_verified_at').update({ email_verified_at: now, updated_at: now });
  }

  /** Users whose address is on one of `domains` (lower-case names), with whether each is an operator. */
  async onDomains(domains: readonly string[]): Promise<Array<{ id: string; operator: boolean }>> {
    if (domains.length === 0) return [];
    // LIKE narrows the scan; the exact suffix check below decides ('_' is a LIKE wildcard).
    const rows = (await this.knex('users')
      .where((q) => {
        for (const domain of domains) q.orWhere('email', 'like', `%@${domain}`);
      })
      .select('id', 'email', 'operator')) as Array<{ id: string; email: string; operator: unknown }>;
    return rows
      .filter((row) => domains.some((domain) => row.email.toLowerCase().endsWith(`@${domain}`)))
      .map((row) => ({ id: String(row.id), operator: row.operator === true || Number(row.operator) === 1 }));
  }

  /** Whether the user runs this appliance (`mailroom user create --operator`): no team is theirs. */
  async isOperator(userId: string): Promise<boolean> {
    const row = (await this.knex('users').where({ id: userId }).first('operator')) as { operator: unknown } | undefined;
    // SQLite answers 0/1, MariaDB 0/1 or a boolean.
    return row !== undefined && (row.operator === true || Number(row.operator) === 1);
  }
}
