import { z } from 'zod';
import {
  contactPageQuerySchema,
  createContactSchema,
  updateContactSchema,
} from '../../../core/audience/contacts/contact.schemas.js';
import { publicContact, publicContactItem } from '../../../core/audience/contacts/contact.shape.js';
import { defineRoute } from '../../route.js';
import {
  apiOrigin,
  contactDeletedSchema,
  contactListSchema,
  contactParam,
  contactSchema,
  idParam,
  refSchema,
} from './audience-schemas.js';

/**
 * The deprecated `/audiences/{audience_id}/contacts` paths the resend SDK still calls when given
 * an audienceId: an audience is a segment. Each checks the segment first (404 when it is not the
 * team's), then does what the `/contacts` route does; a create also adds the contact to it.
 */
const tag = 'contacts';
const audience = { audience_id: idParam('Audience (segment)') };
const isolation = { param: 'audience_id', resource: 'segment' };
const one = z.object({ ...audience, contact: contactParam });
const deprecated = 'Deprecated alias: ';

export const audienceAliasRoutes = [
  defineRoute({
    method: 'POST',
    path: '/audiences/:audience_id/contacts',
    operationId: 'createAudienceContact',
    summary: `${deprecated}create a contact and add it to the segment`,
    tag,
    permission: 'full_access',
    scope: null,
    params: z.object(audience),
    isolation,
    body: createContactSchema.omit({ segments: true, topics: true }),
    exampleBody: { email: 'ada@example.com' },
    responses: { 201: { description: 'The contact', schema: refSchema('contact') } },
    handler: async (ctx) => {
      const segment = await ctx.services.segments.get(ctx.caller.team.id, ctx.params.audience_id);
      const { contact } = await ctx.services.contacts.create(
        ctx.caller.team.id,
        ctx.caller.team.plan.limits.contact_limit,
        { ...ctx.body, segments: [{ id: segment.id }] },
        apiOrigin(ctx),
      );
      return { status: 201, body: { object: 'contact', id: contact.id } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/audiences/:audience_id/contacts',
    operationId: 'listAudienceContacts',
    summary: `${deprecated}the segment's members, newest first`,
    tag,
    permission: 'sending_access',
    scope: null,
    params: z.object(audience),
    query: contactPageQuerySchema,
    isolation,
    responses: { 200: { description: 'A page of contacts (no has_more)', schema: contactListSchema } },
    handler: async ({ params, query, caller, services }) => {
      const { contacts } = await services.segments.contacts(caller.team.id, params.audience_id, query);
      return { status: 200, body: { object: 'list', data: contacts.map(publicContactItem) } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/audiences/:audience_id/contacts/:contact',
    operationId: 'getAudienceContact',
    summary: `${deprecated}retrieve a contact`,
    tag,
    permission: 'sending_access',
    scope: null,
    params: one,
    isolation,
    responses: { 200: { description: 'The contact', schema: contactSchema } },
    handler: async ({ params, caller, services }) => {
      await services.segments.get(caller.team.id, params.audience_id);
      return { status: 200, body: publicContact(await services.contacts.get(caller.team.id, params.contact)) };
    },
  }),
  defineRoute({
    method: 'PATCH',
    path: '/audiences/:audience_id/contacts/:contact',
    operationId: 'updateAudienceContact',
    summary: `${deprecated}update a contact`,
    tag,
    permission: 'full_access',
    scope: null,
    params: one,
    isolation,
    body: updateContactSchema,
    exampleBody: { first_name: 'Ada' },
    responses: { 200: { description: 'Updated', schema: refSchema('contact') } },
    handler: async (ctx) => {
      await ctx.services.segments.get(ctx.caller.team.id, ctx.params.audience_id);
      const contact = await ctx.services.contacts.update(
        ctx.caller.team.id,
        ctx.params.contact,
        ctx.body,
        apiOrigin(ctx),
      );
      return { status: 200, body: { object: 'contact', id: contact.id } };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/audiences/:audience_id/contacts/:contact',
    operationId: 'deleteAudienceContact',
    summary: `${deprecated}erase a contact (a contact belonged to one audience)`,
    tag,
    permission: 'full_access',
    scope: null,
    params: one,
    isolation,
    responses: {
      200: {
        description: 'Erased',
        schema: contactDeletedSchema,
      },
    },
    handler: async ({ params, caller, services }) => {
      await services.segments.get(caller.team.id, params.audience_id);
      const contact = await services.contacts.remove(caller.team.id, params.contact);
      return { status: 200, body: { object: 'contact', id: contact.id, contact: contact.id, deleted: true } };
    },
  }),
];
