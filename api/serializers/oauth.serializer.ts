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

/**
 * A grant in the resend SDK's OAuthGrant shape (its client as `client { name, logo_uri }`, the
 * revocation fields, null while live), with our object, user_id and last_used_at beside it.
 */
export function serializeOAuthGrant(grant: GrantWithClient) {
  return {
    object: 'oauth_grant' as const,
    id: grant.id,
    client_id: grant.clientId,
    client: { name: grant.clientName, logo_uri: grant.clientLogoUri },
    user_id: grant.userId,
    scopes: grant.scopes,
    created_at: grant.createdAt.toISOString(),
    last_used_at: isoOrNull(grant.lastUsedAt),
    revoked_at: isoOrNull(grant.revokedAt),
    revoked_reason: grant.revokedAt ? REVOKED_FROM_API : null,
  };
}

/** Why a grant ended, as Resend words a revoke through DELETE /oauth/grants/{id}. */
export const REVOKED_FROM_API = 'revoked_from_api';

/** The revoke answer the resend SDK types (RevokeOAuthGrantResponseSuccess). */
export function serializeOAuthGrantRevoked(revoked: { id: string; revokedAt: Date }) {
  return {
    object: 'oauth_grant' as const,
    id: revoked.id,
    revoked_at: revoked.revokedAt.toISOString(),
    revoked_reason: REVOKED_FROM_API,
  };
}
