import { z } from 'zod';
import type { PageForm } from '../pages/page-form.js';
import { brandedHtmlResult } from '../pages/page-layout.js';
import { preferencesPage, unsubscribeConfirmation, unsubscribedPage } from '../pages/preference-pages.js';
import { defineRoute, type RouteContext } from '../route.js';

/**
 * Pages a recipient opens from an email (the UNSUBSCRIBE_URL and PREFERENCES_URL merge
 * variables): served on the public URL outside the API, no credential but the signed token.
 */
const tag = 'pages';
const params = z.object({ token: z.string().regex(/^[A-Za-z0-9_-]{1,88}$/) });
const html = { description: 'An HTML page', contentType: 'text/html' };

const origin = (
  source: 'one_click' | 'preference_page',
  ctx: Pick<RouteContext<unknown, unknown, unknown>, 'clientIp' | 'headers'>,
) => ({
  source,
  ip: ctx.clientIp.startsWith('::ffff:') ? ctx.clientIp.slice(7) : ctx.clientIp,
  userAgent: (ctx.headers['user-agent'] as string | undefined) ?? null,
});

export const pageRoutes = [
  defineRoute({
    method: 'GET',
    path: '/unsubscribe/:token',
    surface: 'pages',
    operationId: 'unsubscribePage',
    summary: 'Unsubscribe link: a confirmation page with one button (404 for a bad token)',
    tag,
    permission: 'none',
    scope: null,
    params,
    responses: { 200: html, 404: html },
    handler: async ({ params, services }) => {
      const { contact, team } = await services.preferences.unsubscribeTarget(params.token);
      return brandedHtmlResult(200, unsubscribeConfirmation(contact.email, team), team);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/unsubscribe/:token',
    surface: 'pages',
    operationId: 'unsubscribeOneClick',
    summary:
      'One-click unsubscribe (RFC 8058: body List-Unsubscribe=One-Click, no cookie, no login) or the confirmation form',
    tag,
    permission: 'none',
    scope: null,
    params,
    responses: { 200: html, 404: html },
    handler: async (ctx) => {
      const { contact, team } = await ctx.services.preferences.unsubscribe(ctx.params.token, origin('one_click', ctx));
      const form = ctx.body as PageForm;
      if (form.raw.includes('List-Unsubscribe=One-Click'))
        return { status: 200, raw: { contentType: 'text/plain; charset=utf-8', bytes: Buffer.from('Unsubscribed\n') } };
      return brandedHtmlResult(
        200,
        unsubscribedPage(contact.email, ctx.services.preferences.preferencesUrl(contact.id), team),
        team,
      );
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/preferences/:token',
    surface: 'pages',
    operationId: 'preferencesPage',
    summary: 'The hosted preference page: public topics, private opt-ins, global unsubscribe',
    tag,
    permission: 'none',
    scope: null,
    params,
    responses: { 200: html, 404: html },
    handler: async ({ params, query, services }) => {
      const view = await services.preferences.page(params.token);
      return brandedHtmlResult(200, preferencesPage(view, (query as Record<string, unknown>).saved === '1'), view.team);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/preferences/:token',
    surface: 'pages',
    operationId: 'savePreferences',
    summary: 'Save the preference form (fields: topic, repeated per chosen topic; unsubscribed=1), then 303 back',
    tag,
    permission: 'none',
    scope: null,
    params,
    responses: { 303: { description: 'Saved: back to the page' }, 404: html },
    handler: async (ctx) => {
      const form = ctx.body as PageForm;
      const chosen = new Set(form.fields.topic ?? []);
      const view = await ctx.services.preferences.page(ctx.params.token);
      await ctx.services.preferences.save(
        ctx.params.token,
        {
          unsubscribed: form.fields.unsubscribed?.includes('1') ?? false,
          topics: new Map(view.topics.map((topic) => [topic.id, chosen.has(topic.id)])),
        },
        origin('preference_page', ctx),
      );
      return { status: 303, headers: { location: `/preferences/${ctx.params.token}?saved=1` } };
    },
  }),
];
