import type { Knex } from 'knex';
import { readNullableTimestamp, readTimestamp } from '../../../../db/dialect.js';
import type { EmailShareLink, ShareSource } from './shared-email.types.js';

type Row = {
  id: string;
  team_id: string;
  email_id: string;
  source: string;
  created_at: unknown;
  expires_at: unknown;
  revoked_at: unknown;
};

const toLink = (row: Row): EmailShareLink => ({
  id: row.id,
  teamId: row.team_id,
  emailId: row.email_id,
  source: row.source as ShareSource,
  createdAt: readTimestamp(row.created_at),
  expiresAt: readTimestamp(row.expires_at),
  revokedAt: readNullableTimestamp(row.revoked_at),
});

/** Share links by the SHA-256 of their token: nothing stored here opens a page. */
export class EmailShareRepository {
  constructor(private readonly knex: Knex) {}

  async insert(link: Omit<EmailShareLink, 'revokedAt'> & { tokenHash: string }): Promise<void> {
    await this.knex('email_share_links').insert({
      id: link.id,
      token_hash: link.tokenHash,
      team_id: link.teamId,
      email_id: link.emailId,
      source: link.source,
      created_at: link.createdAt,
      expires_at: link.expiresAt,
    });
  }

  async findByHash(tokenHash: string): Promise<EmailShareLink | undefined> {
    const row = (await this.knex('email_share_links').where({ token_hash: tokenHash }).first()) as Row | undefined;
    return row ? toLink(row) : undefined;
  }

  /** Revokes every live link of one email of a team; the number revoked. */
  async revokeAll(teamId: string, emailId: string, at: Date): Promise<number> {
    return this.knex('email_share_links')
      .where({ team_id: teamId, email_id: emailId })
      .whereNull('revoked_at')
      .where('expires_at', '>', at)
      .update({ revoked_at: at });
  }

  /** Retention: links past their expiry (revoked ones included) are of no further use. */
  async deleteExpired(before: Date, limit = 1000): Promise<number> {
    const ids = (await this.knex('email_share_links').where('expires_at', '<=', before).limit(limit).pluck('id')) as
      string[] | undefined;
    if (!ids || ids.length === 0) return 0;
    return this.knex('email_share_links').whereIn('id', ids).delete();
  }
}
