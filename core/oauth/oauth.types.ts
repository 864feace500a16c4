/** A registered client (RFC 7591 metadata as stored). Public clients only: no secret exists. */
export type OAuthClient = {
  id: string;
  clientName: string;
  redirectUris: string[];
  grantTypes: GrantType[];
  scopes: string[];
  clientUri: string | null;
  logoUri: string | null;
  softwareId: string | null;
  softwareVersion: string | null;
  createdAt: Date;
  deletedAt: Date | null;
};

export type GrantType = 'authorization_code' | 'refresh_token';

/** The metadata a registration (or its replacement) sets, once validated. */
export type ClientMetadata = Omit<OAuthClient, 'id' | 'createdAt' | 'deletedAt'>;

/**
 * One approval: a client, a team, the person who approved (null when not known), the scopes, and
 * the resource (RFC 8707) its tokens are for (null: none named, the REST API).
 */
export type OAuthGrant = {
  id: string;
  clientId: string;
  teamId: string;
  userId: string | null;
  scopes: string[];
  resource: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
};

export type TokenKind = 'access' | 'refresh';

export type OAuthTokenRow = {
  tokenHash: string;
  grantId: string;
  kind: TokenKind;
  scopes: string[];
  createdAt: Date;
  expiresAt: Date | null;
  rotatedAt: Date | null;
  revokedAt: Date | null;
};

export type OAuthCodeRow = {
  codeHash: string;
  grantId: string;
  redirectUri: string;
  codeChallenge: string;
  resource: string | null;
  createdAt: Date;
  expiresAt: Date;
  consumedAt: Date | null;
};

/** The successful token endpoint answer (RFC 6749 5.1). */
export type TokenResponse = {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
};

/** Lifetimes: the spec fixes the access token's; codes follow RFC 6749 4.1.2's "10 minutes maximum". */
export const ACCESS_TOKEN_SECONDS = 3600;
export const CODE_SECONDS = 600;
/** How long a validated /oauth/authorize request waits for the person on the consent page. */
export const PENDING_REQUEST_SECONDS = 600;
