import { messagePage } from '../../pages/page-layout.js';
import { defineRoute } from '../../route.js';
import { oauthJson, readParams, withOAuthErrors } from './oauth-http.js';

/**
 * The authorization endpoint and the token and revocation endpoints (RFC 6749, 7636, 7009).
 * They live on the pages surface, at the root of the public URL: a browser opens /oauth/authorize
 * (HTML error page or redirects), and clients post forms to the other two. The consent page that
 * /oauth/authorize redirects to is in oauth-consent.routes.ts.
 */
const tag = 'oauth';
const json = { description: 'JSON (OAuth error shape on refusals)', contentType: 'application/json' };

/** Where a valid authorization request waits for the person's answer. */
export const CONSENT_PATH = '/oauth/consent';

export const oauthProtocolRoutes = [
  defineRoute({
    method: 'GET',
    path: '/oauth/authorize',
    surface: 'pages',
    operationId: 'authorize',
    summary:
      'Start the code flow (PKCE S256): 302 to the consent page; any error is a 400 page that never redirects (only the person’s answer goes back to the client)',
    tag,
    permission: 'none',
    scope: null,
    responses: {
      302: { description: 'To the consent page' },
      400: { description: 'Error page naming the OAuth error; no redirect', contentType: 'text/html' },
    },
    handler: async ({ query, services }) => {
      const outcome = await services.oauthAuthorization.start(query as Record<string, string | string[]>);
      if (outcome.kind === 'error_page')
        return messagePage(400, 'This sign-in link is not valid', `${outcome.description} (${outcome.error})`);
      return { status: 302, headers: { location: `${CONSENT_PATH}?request=${encodeURIComponent(outcome.requestId)}` } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/oauth/token',
    surface: 'pages',
    operationId: 'token',
    summary:
      'Exchange a code (with code_verifier) or rotate a refresh token; form-encoded or JSON. Access tokens last 3600 s',
    tag,
    permission: 'none',
    scope: null,
    responses: { 200: json, 400: json, 401: json },
    handler: withOAuthErrors(async (ctx) => oauthJson(200, await ctx.services.oauthTokens.token(readParams(ctx)))),
  }),
  defineRoute({
    method: 'POST',
    path: '/oauth/revoke',
    surface: 'pages',
    operationId: 'revokeToken',
    summary:
      'Revoke a token (RFC 7009): an access token alone, a refresh token with every token of its grant. Always 200 for a known client',
    tag,
    permission: 'none',
    scope: null,
    responses: { 200: { description: 'Empty body' }, 400: json, 401: json },
    handler: withOAuthErrors(async (ctx) => {
      await ctx.services.oauthTokens.revoke(readParams(ctx));
      return {
        status: 200,
        headers: { 'cache-control': 'no-store' },
        raw: { contentType: 'text/plain; charset=utf-8', bytes: Buffer.alloc(0) },
      };
    }),
  }),
];
