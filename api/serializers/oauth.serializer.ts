import type { GrantWithClient } from '../../core/oauth/oauth-grant.repository.js';
import type { OAuthClient } from '../../core/oauth/oauth.types.js';
import { isoOrNull } from '../../db/dialect.js';

/** RFC 7591 3.2.1 client information response (the spec's registration response fields). */
export function serializeOAuthClient(client: OAuthClient, registrationClientUri: string) {
  return {
    client_id: client.id,
    client_id_issued_at: Math.floor(client.createdAt.getTime() / 1000),
    registration_client_uri: registrationClientUri,
    client_name: client.clientName,
    redirect_uris: client.redirectUris,
    grant_types: client.grantTypes,
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    scope: client.scopes.join(' '),
    ...(client.clientUri ? { client_uri: client.clientUri } : {}),
    ...(client.logoUri ? { logo_uri: client.logoUri } : {}),
    ...(client.softwareId ? { software_id: client.softwareId } : {}),
    ...(client.softwareVersion ? { software_version: client.softwareVersion } : {}),
  };
}

export function serializeOAuthGrant(grant: GrantWithClient) {
  return {
    object: 'oauth_grant' as const,
    id: grant.id,
    client_id: grant.clientId,
    client_name: grant.clientName,
    user_id: grant.userId,
    scopes: grant.scopes,
    created_at: grant.createdAt.toISOString(),
    last_used_at: isoOrNull(grant.lastUsedAt),
  };
}
