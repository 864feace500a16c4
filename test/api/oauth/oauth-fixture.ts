import * as oauth from 'oauth4webapi';
import { redirectWith } from '../../../core/oauth/authorize-request.js';
import type { Test } from 'tap';
import type { HttpResponse } from '../../helpers/http.js';
import type { TestApp } from '../../helpers/test-app.js';

/** What the OAuth tests share: a real client (oauth4webapi) against the appliance on loopback. */
export const REDIRECT_URI = 'http://127.0.0.1:7777/callback';

/** The test server is http on loopback: oauth4webapi refuses that unless told. */
export const insecure = { [oauth.allowInsecureRequests]: true } as const;

export async function discover(app: TestApp): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(app.url);
  return oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { ...insecure, algorithm: 'oauth2' }),
  );
}

/** Registers a public client through RFC 7591 as a real client would. */
export async function registerClient(
  as: oauth.AuthorizationServer,
  metadata: Record<string, unknown> = {},
): Promise<oauth.Client & { registration_access_token: string; registration_client_uri: string }> {
  const response = await oauth.dynamicClientRegistrationRequest(
    as,
    { client_name: 'Test app', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none', ...metadata },
    insecure,
  );
  return (await oauth.processDynamicClientRegistrationResponse(response)) as never;
}

/**
 * A code as the consent page will hand it out (issueCode stands in for the person's approval),
 * checked by oauth4webapi as the callback the client receives.
 */
export async function approve(
  app: TestApp,
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  teamId: string,
  scopes: string[],
  /** The RFC 8707 resource the authorization request named (null: none, the REST API). */
  resource: string | null = null,
): Promise<{ callback: URLSearchParams; verifier: string; grantId: string; code: string }> {
  const verifier = oauth.generateRandomCodeVerifier();
  const { code, grantId } = await app.runtime.services.oauthTokens.issueCode({
    clientId: client.client_id,
    teamId,
    userId: null,
    scopes,
    redirectUri: REDIRECT_URI,
    codeChallenge: await oauth.calculatePKCECodeChallenge(verifier),
    resource,
  });
  const state = oauth.generateRandomState();
  const url = new URL(redirectWith(REDIRECT_URI, { code, state }));
  return { callback: oauth.validateAuthResponse(as, client, url, state), verifier, grantId, code };
}

export async function exchange(
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  approval: { callback: URLSearchParams; verifier: string },
  redirectUri = REDIRECT_URI,
  /** Extra token request parameters, e.g. { resource } (RFC 8707 2.2). */
  additionalParameters?: Record<string, string>,
): Promise<oauth.TokenEndpointResponse> {
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.None(),
    approval.callback,
    redirectUri,
    approval.verifier,
    { ...insecure, ...(additionalParameters ? { additionalParameters } : {}) },
  );
  return oauth.processAuthorizationCodeResponse(as, client, response);
}

export async function refresh(
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  refreshToken: string,
  scope?: string,
  resource?: string,
): Promise<oauth.TokenEndpointResponse> {
  const additionalParameters = { ...(scope ? { scope } : {}), ...(resource ? { resource } : {}) };
  const response = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshToken, {
    ...insecure,
    ...(scope || resource ? { additionalParameters } : {}),
  });
  return oauth.processRefreshTokenResponse(as, client, response);
}

export async function revoke(as: oauth.AuthorizationServer, client: oauth.Client, token: string): Promise<Response> {
  return oauth.revocationRequest(as, client, oauth.None(), token, insecure);
}

/** Asserts the OAuth error shape: `{ error, error_description }` and nothing else, JSON. */
export function oauthErrorShape(t: Test, response: HttpResponse, status: number, error: string): void {
  t.equal(response.status, status, `status ${status}`);
  t.same(Object.keys(response.body ?? {}).sort(), ['error', 'error_description'], 'OAuth error shape');
  t.equal(response.body?.error, error, `error ${error}`);
  t.type(response.body?.error_description, 'string');
  t.match(response.headers.get('content-type') ?? '', /application\/json/);
}
