import { CODE_CHALLENGE } from './oauth.tokens.js';
import { SCOPE_CATALOGUE, isSubset, parseScope } from './oauth.scopes.js';
import type { OAuthClient } from './oauth.types.js';

export const MAX_STATE_LENGTH = 512;

/** A request the person may approve: what the consent page shows and issueCode takes. */
export type AuthorizationRequest = {
  clientId: string;
  clientName: string;
  redirectUri: string;
  scopes: string[];
  state: string;
  codeChallenge: string;
  resource: string | null;
};

export type AuthorizeOutcome =
  | { kind: 'valid'; request: AuthorizationRequest }
  /** Sent back to the client (RFC 6749 4.1.2.1): the redirect URI is known to be the client's. */
  | { kind: 'redirect_error'; redirectUri: string; error: string; description: string; state: string | null }
  /** Unknown client or unregistered redirect URI: never redirect (RFC 6749 4.1.2.1, first paragraph). */
  | { kind: 'error_page'; description: string };

type Query = Record<string, string | string[] | undefined>;

/**
 * Every rule of GET /oauth/authorize, in the order RFC 6749 needs: first what decides whether a
 * redirect is safe (client, redirect URI), then everything reported to the client by redirect.
 * A repeated parameter is malformed (RFC 6749 3.1).
 */
export function validateAuthorizeRequest(
  query: Query,
  client: OAuthClient | undefined,
  isThisApi: (resource: string) => boolean,
): AuthorizeOutcome {
  const clientId = single(query.client_id);
  if (!clientId || !client || client.id !== clientId)
    return { kind: 'error_page', description: 'The application asking for access is not known to this server.' };
  const redirectUri = single(query.redirect_uri);
  if (!redirectUri || !client.redirectUris.includes(redirectUri))
    return { kind: 'error_page', description: 'The application gave a redirect address it has not registered.' };

  const rawState = query.state;
  const state = single(rawState);
  const validState = state !== undefined && state !== '' && state.length <= MAX_STATE_LENGTH ? state : null;
  const refuse = (error: string, description: string): AuthorizeOutcome => ({
    kind: 'redirect_error',
    redirectUri,
    error,
    description,
    state: validState,
  });
  const repeated = Object.entries(query).find(([, value]) => Array.isArray(value));
  if (repeated) return refuse('invalid_request', `${repeated[0]} must not be repeated`);
  if (!validState) return refuse('invalid_request', `state is required (1 to ${MAX_STATE_LENGTH} characters)`);
  const responseType = single(query.response_type);
  if (!responseType) return refuse('invalid_request', 'response_type is required');
  if (responseType !== 'code') return refuse('unsupported_response_type', 'response_type must be code');
  const challenge = single(query.code_challenge);
  if (!challenge || !CODE_CHALLENGE.test(challenge))
    return refuse('invalid_request', 'code_challenge is required: BASE64URL(SHA-256(code_verifier)), 43 characters');
  if (single(query.code_challenge_method) !== 'S256')
    return refuse('invalid_request', 'code_challenge_method must be S256 (plain is not supported)');

  const scopeParam = single(query.scope);
  const scopes = scopeParam === undefined ? client.scopes : parseScope(scopeParam);
  if (!scopes) return refuse('invalid_scope', `scope must name scopes of: ${SCOPE_CATALOGUE.join(' ')}`);
  if (!isSubset(scopes, client.scopes))
    return refuse('invalid_scope', 'scope asks for more than this application registered');
  const resource = single(query.resource) ?? null;
  if (resource !== null && !isThisApi(resource))
    return refuse('invalid_target', 'resource must name this API (RFC 8707)');

  return {
    kind: 'valid',
    request: {
      clientId,
      clientName: client.clientName,
      redirectUri,
      scopes,
      state: validState,
      codeChallenge: challenge,
      resource,
    },
  };
}

/** The client's redirect URI with the answer's parameters added (its own query is kept). */
export function redirectWith(redirectUri: string, params: Record<string, string | null>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== null) url.searchParams.set(name, value);
  return url.toString();
}

/** Resource indicators naming this API: its public URL, either base, or the MCP route. */
export function resourceMatcher(publicUrl: () => string): (resource: string) => boolean {
  return (resource) => {
    if (!URL.canParse(resource) || resource.includes('#')) return false;
    const url = new URL(resource);
    const base = new URL(publicUrl());
    const path = url.pathname.replace(/\/+$/, '');
    return url.origin === base.origin && url.search === '' && ['', '/api/v1', '/mcp'].includes(path);
  };
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? undefined : value;
}
