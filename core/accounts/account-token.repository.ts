import type { Knex } from 'knex';
import type { AccountTokenKind } from './account.types.js';

/** The account_tokens table (verification, reset and MFA-challenge tokens), found by the token's SHA-256. */
export class AccountTokenRepository {
  constructor(private readonly knex: Knex) {}

  async insert(
    token: { id: string; userId: string; kind: AccountTokenKind; tokenHash: string; expiresAt: Date; createdAt: Date },
    trx: Knex = this.knex,
  ): Promise<void> {
    await trx('account_tokens').insert({
      id: token.id,
      user_id: token.userId,
      kind: token.kind,
      token_hash: token.tokenHash,
      expires_at: token.expiresAt,
      created_at: token.createdAt,
    });
  }

  /**
   * Uses the token once: marks an unused, unexpired token of `kind` used and returns its user.
   * The conditional UPDATE is what makes it single-use when two requests race with one token.
   */
  async consume(kind: AccountTokenKind, tokenHash: string, now: Date, trx: Knex): Promise<string | undefined> {
    const row = await trx('account_tokens')
      .where({ token_hash: tokenHash, kind })
      .whereNull('used_at')
      .where('expires_at', '>', now)
      .first('id', 'user_id');
    if (!row) return undefined;
    const updated = await trx('account_tokens').where({ id: row.id }).whereNull('used_at').update({ used_at: now });
    return updated === 1 ? String(row.user_id) : undefined;
  }

  /**
   * Uses up every outstanding token of the user of these kinds (a password change: links that
   * set a password, challenges that proved the old one). Marked used, not deleted: a link that
   * comes back gets the answer of any used one, and retention removes the rows as before.
   */
  async spendAllOfUser(userId: string, kinds: readonly AccountTokenKind[], now: Date, trx: Knex): Promise<number> {
    return trx('account_tokens')
      .where({ user_id: userId })
      .whereIn('kind', [...kinds])
      .whereNull('used_at')
      .update({ used_at: now });
  }

  /** The user of an unused, unexpired token, leaving it unused (an MFA challenge survives a wrong code). */
  async peek(kind: AccountTokenKind, tokenHash: string, now: Date, trx: Knex = this.knex): Promise<string | undefined> {
    const row = await trx('account_tokens')
      .where({ token_hash: tokenHash, kind })
      .whereNull('used_at')
      .where('expires_at', '>', now)
      .first('user_id');
    return row ? String(row.user_id) : undefined;
  }

  /** Retention: tokens that expired before `before`. */
  async deleteExpiredBefore(before: Date): Promise<number> {
    return this.knex('account_tokens').where('expires_at', '<', before).delete();
  }
}
