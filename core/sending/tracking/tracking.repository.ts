import type { Knex } from 'knex';
import { EmailRepository } from '../emails/email.repository.js';
import type { Email } from '../emails/email.types.js';

/** The two reads tracking needs: an email by id alone (the token is the credential), and tracking hosts. */
export class TrackingRepository {
  constructor(private readonly knex: Knex) {}

  async emailById(id: string): Promise<Email | undefined> {
    const row = (await this.knex('emails').where({ id }).first('team_id')) as { team_id: string } | undefined;
    return row ? new EmailRepository(this.knex).findInTeam(String(row.team_id), id) : undefined;
  }

  /** Whether a domain that passed verification uses `subdomain` as its tracking label. */
  async isTrackingSubdomain(name: string, subdomain: string): Promise<boolean> {
    const row = await this.knex('domains')
      .where({ name, tracking_subdomain: subdomain })
      .whereNotNull('verified_at')
      .first('id');
    return row !== undefined;
  }
}
