import { z } from 'zod';
import { serializeOAuthClient } from '../../serializers/oauth.serializer.js';
import { defineRoute } from '../../route.js';
import { bearerToken, oauthJson, readJsonObject, withOAuthErrors } from './oauth-http.js';

/**
 * Dynamic client registration (RFC 7591) and management (RFC 7592), in the OAuth error shape.
 * The management routes take only the registration access token (svcor_): they are not
 * reachable with an API key or a session, hence permission null. Served at the root of the
 * public URL (the pages surface), which is where the metadata document points.
 */
const tag = 'oauth';
const json = { description: 'JSON (OAuth error shape on refusals)', contentType: 'application/json' };
const clientParams = z.object({ client_id: z.string() });

export const oauthRegisterRoutes = [
  defineRoute({
    method: 'POST',
    path: '/oauth/register',
    surface: 'pages',
    operationId: 'registerOAuthClient',
    summary:
      'Register a public OAuth client (RFC 7591); the registration access token is shown once. 10 per address per hour, 1,000 a day',
    tag,
    permission: 'none',
    scope: null,
    responses: { 201: json, 400: json, 429: json },
    handler: withOAuthErrors(async (ctx) => {
      const body = readJsonObject(ctx);
      const { client, registrationToken } = await ctx.services.oauthClients.register(body, ctx.clientIp);
      const uri = ctx.services.oauthMetadata.registrationClientUri(client.id);
      return oauthJson(201, { ...serializeOAuthClient(client, uri), registration_access_token: registrationToken });
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/oauth/register/:client_id',
    surface: 'pages',
    operationId: 'readOAuthClient',
    summary: 'Read a client’s registration (RFC 7592) with its registration access token',
    tag,
    permission: null,
    scope: null,
    params: clientParams,
    responses: { 200: json, 401: json },
    handler: withOAuthErrors(async (ctx) => {
      const { client_id: clientId } = ctx.params as z.output<typeof clientParams>;
      const client = await ctx.services.oauthClients.authorize(clientId, bearerToken(ctx));
      return oauthJson(200, serializeOAuthClient(client, ctx.services.oauthMetadata.registrationClientUri(client.id)));
    }),
  }),
  defineRoute({
    method: 'PUT',
    path: '/oauth/register/:client_id',
    surface: 'pages',
    operationId: 'replaceOAuthClient',
    summary: 'Replace a client’s metadata (RFC 7592): the body is the whole registration, with client_id',
    tag,
    permission: null,
    scope: null,
    params: clientParams,
    responses: { 200: json, 400: json, 401: json },
    handler: withOAuthErrors(async (ctx) => {
      const { client_id: clientId } = ctx.params as z.output<typeof clientParams>;
      const client = await ctx.services.oauthClients.authorize(clientId, bearerToken(ctx));
      const replaced = await ctx.services.oauthClients.replace(client, readJsonObject(ctx));
      return oauthJson(
        200,
        serializeOAuthClient(replaced, ctx.services.oauthMetadata.registrationClientUri(client.id)),
      );
    }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/oauth/register/:client_id',
    surface: 'pages',
    operationId: 'deleteOAuthClient',
    summary: 'Delete a client (RFC 7592): every grant it holds ends, with every token',
    tag,
    permission: null,
    scope: null,
    params: clientParams,
    responses: { 204: { description: 'Deleted' }, 401: json },
    handler: withOAuthErrors(async (ctx) => {
      const { client_id: clientId } = ctx.params as z.output<typeof clientParams>;
      const client = await ctx.services.oauthClients.authorize(clientId, bearerToken(ctx));
      await ctx.services.oauthClients.delete(client);
      return { status: 204, headers: { 'cache-control': 'no-store' } };
    }),
  }),
];
