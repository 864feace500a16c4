import type { Knex } from 'knex';
import { readNullableTimestamp, readTimestamp } from '../../db/dialect.js';
import type { OAuthCodeRow, OAuthTokenRow, TokenKind } from './oauth.types.js';

type TokenRow = {
  token_hash: string;
  grant_id: string;
  kind: string;
  scope: string;
  created_at: unknown;
  expires_at: unknown;
  rotated_at: unknown;
  revoked_at: unknown;
};

type CodeRow = {
  code_hash: string;
  grant_id: string;
  redirect_uri: string;
  code_challenge: string;
  resource: string | null;
  created_at: unknown;
  expires_at: unknown;
  consumed_at: unknown;
};

function toToken(row: TokenRow): OAuthTokenRow {
  return {
    tokenHash: row.token_hash,
    grantId: row.grant_id,
    kind: row.kind as TokenKind,
    scopes: row.scope.split(' ').filter(Boolean),
    createdAt: readTimestamp(row.created_at),
    expiresAt: readNullableTimestamp(row.expires_at),
    rotatedAt: readNullableTimestamp(row.rotated_at),
    revokedAt: readNullableTimestamp(row.revoked_at),
  };
}

function toCode(row: CodeRow): OAuthCodeRow {
  return {
    codeHash: row.code_hash,
    grantId: row.grant_id,
    redirectUri: row.redirect_uri,
    codeChallenge: row.code_challenge,
    resource: row.resource,
    createdAt: readTimestamp(row.created_at),
    expiresAt: readTimestamp(row.expires_at),
    consumedAt: readNullableTimestamp(row.consumed_at),
  };
}

/** Codes and tokens, by the SHA-256 of their text: nothing here can be presented back. */
export class OAuthTokenRepository {
  constructor(private readonly knex: Knex) {}

  async insertCode(code: Omit<OAuthCodeRow, 'consumedAt'>, trx: Knex = this.knex): Promise<void> {
    await trx('oauth_codes').insert({
      code_hash: code.codeHash,
      grant_id: code.grantId,
      redirect_uri: code.redirectUri,
      code_challenge: code.codeChallenge,
      resource: code.resource,
      created_at: code.createdAt,
      expires_at: code.expiresAt,
    });
  }

  async findCode(hash: string): Promise<OAuthCodeRow | undefined> {
    const row = (await this.knex('oauth_codes').where({ code_hash: hash }).first()) as CodeRow | undefined;
    return row ? toCode(row) : undefined;
  }

  /** Marks a code used; false when it already was (a replay, or a concurrent exchange). */
  async consumeCode(hash: string, at: Date, trx: Knex): Promise<boolean> {
    const changed = await trx('oauth_codes')
      .where({ code_hash: hash })
      .whereNull('consumed_at')
      .update({ consumed_at: at });
    return changed === 1;
  }

  async insertTokens(tokens: Array<Omit<OAuthTokenRow, 'rotatedAt' | 'revokedAt'>>, trx: Knex): Promise<void> {
    await trx('oauth_tokens').insert(
      tokens.map((token) => ({
        token_hash: token.tokenHash,
        grant_id: token.grantId,
        kind: token.kind,
        scope: token.scopes.join(' '),
        created_at: token.createdAt,
        expires_at: token.expiresAt,
      })),
    );
  }

  async findToken(hash: string): Promise<OAuthTokenRow | undefined> {
    const row = (await this.knex('oauth_tokens').where({ token_hash: hash }).first()) as TokenRow | undefined;
    return row ? toToken(row) : undefined;
  }

  /** Retires a refresh token on rotation; false when it was no longer live (a concurrent rotation). */
  async rotate(hash: string, at: Date, trx: Knex): Promise<boolean> {
    const changed = await trx('oauth_tokens')
      .where({ token_hash: hash })
      .whereNull('revoked_at')
      .update({ rotated_at: at, revoked_at: at });
    return changed === 1;
  }

  async revokeOne(hash: string, at: Date): Promise<void> {
    await this.knex('oauth_tokens').where({ token_hash: hash }).whereNull('revoked_at').update({ revoked_at: at });
  }

  /** Every token of a grant (a refresh token's family); the grant itself stays. */
  async revokeAllOfGrant(grantId: string, at: Date): Promise<void> {
    await this.knex('oauth_tokens').where({ grant_id: grantId }).whereNull('revoked_at').update({ revoked_at: at });
  }
}
