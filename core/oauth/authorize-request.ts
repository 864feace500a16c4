import type { Audience } from '../platform/auth/caller.js';
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
  /**
   * Shown to the person, never sent to the client: an unknown client or unregistered redirect URI
   * (RFC 6749 4.1.2.1, first paragraph), and every other refusal too. Every client of this
   * server registered itself (RFC 7591), and a redirect with an error before the person has seen
   * the consent page would make /oauth/authorize an open redirector for anyone who registers
   * (RFC 9700 4.11.2). Only the person's answer (approval, or access_denied) goes back by redirect.
   */
  | { kind: 'error_page'; error: string; description: string };

type Query = Record<string, string | string[] | undefined>;

/**
 * Every rule of GET /oauth/authorize, in RFC 6749's order: the client and redirect URI first,
 * then the rest of the request. A repeated parameter is malformed (RFC 6749 3.1).
 */
export function validateAuthorizeRequest(
  query: Query,
  client: OAuthClient | undefined,
  audienceOf: (resource: string) => Audience | null,
): AuthorizeOutcome {
  const refuse = (error: string, description: string): AuthorizeOutcome => ({ kind: 'error_page', error, description });
  const clientId = single(query.client_id);
  if (!clientId || !client || client.id !== clientId)
    return refuse('invalid_client', 'The application asking for access is not known to this server.');
  const redirectUri = single(query.redirect_uri);
  if (!redirectUri || !client.redirectUris.includes(redirectUri))
    return refuse('invalid_request', 'The application gave a redirect address it has not registered.');

  const state = single(query.state);
  const validState = state !== undefined && state !== '' && state.length <= MAX_STATE_LENGTH ? state : null;
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
  if (resource !== null && !audienceOf(resource))
    return refuse(
      'invalid_target',
      'resource must be the absolute URI of this server’s API or of its /mcp route, without a query or fragment (RFC 8707)',
    );

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

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? undefined : value;
}
