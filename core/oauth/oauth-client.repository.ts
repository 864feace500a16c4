import type { Knex } from 'knex';
import { readJson, readNullableTimestamp, readTimestamp } from '../../db/dialect.js';
import type { ClientMetadata, GrantType, OAuthClient } from './oauth.types.js';

type ClientRow = {
  id: string;
  client_name: string;
  redirect_uris: unknown;
  grant_types: string;
  scope: string;
  client_uri: string | null;
  logo_uri: string | null;
  software_id: string | null;
  software_version: string | null;
  created_at: unknown;
  deleted_at: unknown;
};

function toClient(row: ClientRow): OAuthClient {
  return {
    id: row.id,
    clientName: row.client_name,
    redirectUris: readJson<string[]>(row.redirect_uris, []),
    grantTypes: row.grant_types.split(' ') as GrantType[],
    scopes: row.scope.split(' ').filter(Boolean),
    clientUri: row.client_uri,
    logoUri: row.logo_uri,
    softwareId: row.software_id,
    softwareVersion: row.software_version,
    createdAt: readTimestamp(row.created_at),
    deletedAt: readNullableTimestamp(row.deleted_at),
  };
}

function metadataColumns(metadata: ClientMetadata) {
  return {
    client_name: metadata.clientName,
    redirect_uris: JSON.stringify(metadata.redirectUris),
    grant_types: metadata.grantTypes.join(' '),
    scope: metadata.scopes.join(' '),
    client_uri: metadata.clientUri,
    logo_uri: metadata.logoUri,
    software_id: metadata.softwareId,
    software_version: metadata.softwareVersion,
  };
}

export class OAuthClientRepository {
  constructor(private readonly knex: Knex) {}

  async insert(
    client: { id: string; metadata: ClientMetadata; registrationTokenHash: string; ip: string; at: Date },
    trx: Knex = this.knex,
  ): Promise<void> {
    await trx('oauth_clients').insert({
      id: client.id,
      ...metadataColumns(client.metadata),
      registration_token_hash: client.registrationTokenHash,
      registration_ip: client.ip,
      created_at: client.at,
      updated_at: client.at,
    });
  }

  /** A live (not deleted) client. */
  async find(id: string): Promise<OAuthClient | undefined> {
    const row = (await this.knex('oauth_clients').where({ id }).whereNull('deleted_at').first()) as
      ClientRow | undefined;
    return row ? toClient(row) : undefined;
  }

  /** The live client a registration access token belongs to. */
  async findByRegistrationToken(hash: string): Promise<OAuthClient | undefined> {
    const row = (await this.knex('oauth_clients')
      .where({ registration_token_hash: hash })
      .whereNull('deleted_at')
      .first()) as ClientRow | undefined;
    return row ? toClient(row) : undefined;
  }

  async replace(id: string, metadata: ClientMetadata, at: Date): Promise<void> {
    await this.knex('oauth_clients')
      .where({ id })
      .update({ ...metadataColumns(metadata), updated_at: at });
  }

  async markDeleted(id: string, at: Date, trx: Knex = this.knex): Promise<void> {
    await trx('oauth_clients').where({ id }).whereNull('deleted_at').update({ deleted_at: at, updated_at: at });
  }

  /** Registrations since `since`, from one address or (ip null) from anywhere, with the oldest one's time. */
  async countSince(since: Date, ip: string | null): Promise<{ count: number; oldest: Date | null }> {
    const query = this.knex('oauth_clients').where('created_at', '>', since);
    if (ip !== null) query.where('registration_ip', ip);
    const row = (await query.count({ count: '*' }).min({ oldest: 'created_at' }).first()) as
      { count: number | string; oldest: unknown } | undefined;
    return { count: Number(row?.count ?? 0), oldest: readNullableTimestamp(row?.oldest) };
  }
}
