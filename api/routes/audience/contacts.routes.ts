import { z } from 'zod';
import {
  contactPageQuerySchema,
  createContactSchema,
  listContactsQuerySchema,
  updateContactSchema,
  updateContactTopicsSchema,
} from '../../../core/audience/contacts/contact.schemas.js';
import { publicContact, publicContactItem } from '../../../core/audience/contacts/contact.shape.js';
import { publicConsentRecord } from '../../../core/audience/consent/consent-record.shape.js';
import { pageOf } from '../../../core/shared/pagination/page-of.js';
import { listEnvelope } from '../../../core/shared/pagination/list-query.js';
import { defineRoute } from '../../route.js';
import { listSchema } from '../../schemas.js';
import {
  apiOrigin,
  contactDeletedSchema,
  contactListSchema,
  contactParam,
  contactSchema,
  idParam,
  refSchema,
} from './audience-schemas.js';

const tag = 'contacts';
const params = z.object({ contact: contactParam });
const isolation = { param: 'contact', resource: 'contact' };
const membershipParams = z.object({ contact: contactParam, segment_id: idParam('Segment') });
const membershipSchema = z.object({
  object: z.literal('contact_segment'),
  id: z.string(),
  contact_id: z.string(),
  segment_id: z.string(),
});
const contactTopicSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  subscription: z.enum(['opt_in', 'opt_out']),
});
const consentRecordSchema = z.object({
  object: z.literal('consent_record'),
  id: z.string(),
  kind: z.enum(['unsubscribed', 'topic']),
  topic_id: z.string().nullable(),
  value: z.string(),
  source: z.string(),
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
  created_at: z.string(),
});

export const contactRoutes = [
  defineRoute({
    method: 'POST',
    path: '/contacts',
    operationId: 'createContact',
    summary: 'Create a contact (an existing address is updated, never resubscribed)',
    tag,
    permission: 'full_access',
    scope: null,
    body: createContactSchema,
    exampleBody: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace' },
    responses: { 201: { description: 'The contact (new or existing)', schema: refSchema('contact') } },
    handler: async (ctx) => {
      const { contact } = await ctx.services.contacts.create(
        ctx.caller.team.id,
        ctx.caller.team.plan.limits.contact_limit,
        ctx.body,
        apiOrigin(ctx),
      );
      return { status: 201, body: { object: 'contact', id: contact.id } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/contacts',
    operationId: 'listContacts',
    summary:
      'List contacts, newest first (segment_id: members of a segment; q: addresses starting with it, in address order)',
    tag,
    permission: 'sending_access',
    scope: 'contacts:read',
    query: listContactsQuerySchema,
    responses: { 200: { description: 'A page of contacts (no has_more)', schema: contactListSchema } },
    handler: async ({ query, caller, services }) => {
      const segmentId = query.segment_id ?? query.audience_id;
      const { contacts } = segmentId
        ? await services.segments.contacts(caller.team.id, segmentId, query)
        : query.q !== undefined
          ? await services.contacts.search(caller.team.id, query.q, query)
          : await services.contacts.list(caller.team.id, query);
      return { status: 200, body: { object: 'list', data: contacts.map(publicContactItem) } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/contacts/:contact',
    operationId: 'getContact',
    summary: 'Retrieve a contact by id or address, with its properties',
    tag,
    permission: 'sending_access',
    scope: 'contacts:read',
    params,
    isolation,
    responses: { 200: { description: 'The contact', schema: contactSchema } },
    handler: async ({ params, caller, services }) => ({
      status: 200,
      body: publicContact(await services.contacts.get(caller.team.id, params.contact)),
    }),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/contacts/:contact',
    operationId: 'updateContact',
    summary: 'Update a contact (properties merged key by key; null removes one)',
    tag,
    permission: 'full_access',
    scope: null,
    params,
    isolation,
    body: updateContactSchema,
    exampleBody: { first_name: 'Ada' },
    responses: { 200: { description: 'Updated', schema: refSchema('contact') } },
    handler: async (ctx) => {
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
    path: '/contacts/:contact',
    operationId: 'deleteContact',
    summary: 'Erase a contact (consent records stay under an address hash)',
    tag,
    permission: 'full_access',
    scope: null,
    params,
    isolation,
    responses: {
      200: {
        description: 'Erased',
        schema: contactDeletedSchema,
      },
    },
    handler: async ({ params, caller, services }) => {
      const contact = await services.contacts.remove(caller.team.id, params.contact);
      return { status: 200, body: { object: 'contact', id: contact.id, contact: contact.id, deleted: true } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/contacts/:contact/segments',
    operationId: 'listContactSegments',
    summary: 'Segments the contact belongs to (by hand or by filter)',
    tag,
    permission: 'sending_access',
    scope: 'contacts:read',
    params,
    query: contactPageQuerySchema,
    isolation,
    responses: {
      200: {
        description: 'A page of segments',
        schema: listSchema(z.object({ id: z.string(), name: z.string(), created_at: z.string() })),
      },
    },
    handler: async ({ params, query, caller, services }) => {
      const segments = await services.segments.segmentsOf(caller.team.id, params.contact);
      const { rows, hasMore } = pageOf(segments, query);
      const data = rows.map((s) => ({ id: s.id, name: s.name, created_at: s.createdAt.toISOString() }));
      return { status: 200, body: listEnvelope(data, hasMore) };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/contacts/:contact/segments/:segment_id',
    operationId: 'addContactToSegment',
    summary: 'Add the contact to a segment by hand',
    tag,
    permission: 'full_access',
    scope: null,
    params: membershipParams,
    isolation,
    responses: { 200: { description: 'Member', schema: membershipSchema } },
    handler: async ({ params, caller, services }) => {
      const contact = await services.contacts.addToSegment(caller.team.id, params.contact, params.segment_id);
      const segmentId = params.segment_id.toLowerCase();
      return {
        status: 200,
        body: { object: 'contact_segment', id: segmentId, contact_id: contact.id, segment_id: segmentId },
      };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/contacts/:contact/segments/:segment_id',
    operationId: 'removeContactFromSegment',
    summary: 'End the contact’s membership by hand (a filter match still counts)',
    tag,
    permission: 'full_access',
    scope: null,
    params: membershipParams,
    isolation,
    responses: {
      200: { description: 'Removed', schema: membershipSchema.extend({ deleted: z.literal(true) }) },
    },
    handler: async ({ params, caller, services }) => {
      const contact = await services.contacts.removeFromSegment(caller.team.id, params.contact, params.segment_id);
      const segmentId = params.segment_id.toLowerCase();
      return {
        status: 200,
        body: {
          object: 'contact_segment',
          id: segmentId,
          contact_id: contact.id,
          segment_id: segmentId,
          deleted: true,
        },
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/contacts/:contact/topics',
    operationId: 'listContactTopics',
    summary: 'Every topic with the contact’s effective subscription (own choice, else the default)',
    tag,
    permission: 'sending_access',
    scope: 'contacts:read',
    params,
    query: contactPageQuerySchema,
    isolation,
    responses: { 200: { description: 'A page of topics', schema: listSchema(contactTopicSchema) } },
    handler: async ({ params, query, caller, services }) => {
      const topics = await services.contacts.topicsOf(caller.team.id, params.contact);
      const items = topics.map(({ topic, subscription }) => ({
        id: topic.id,
        name: topic.name,
        description: topic.description,
        subscription,
      }));
      const { rows, hasMore } = pageOf(items, query);
      return { status: 200, body: listEnvelope(rows, hasMore) };
    },
  }),
  defineRoute({
    method: 'PATCH',
    path: '/contacts/:contact/topics',
    operationId: 'updateContactTopics',
    summary: 'Record the contact’s choices for topics (each writes a consent record)',
    tag,
    permission: 'full_access',
    scope: null,
    params,
    isolation,
    body: updateContactTopicsSchema,
    exampleBody: { topics: [{ id: '0199a0a0-0000-7000-8000-000000000001', subscription: 'opt_in' }] },
    responses: {
      200: {
        description: 'Recorded',
        schema: z.object({
          object: z.literal('contact_topics'),
          id: z.string(),
          contact_id: z.string(),
          topics: z.array(z.object({ id: z.string(), subscription: z.enum(['opt_in', 'opt_out']) })),
        }),
      },
    },
    handler: async (ctx) => {
      const choices = Array.isArray(ctx.body) ? ctx.body : ctx.body.topics;
      const contact = await ctx.services.contacts.setTopics(
        ctx.caller.team.id,
        ctx.params.contact,
        choices,
        apiOrigin(ctx),
      );
      const topics = choices.map((c) => ({ id: c.id.toLowerCase(), subscription: c.subscription }));
      return { status: 200, body: { object: 'contact_topics', id: contact.id, contact_id: contact.id, topics } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/contacts/:contact/consent',
    operationId: 'listContactConsent',
    summary: 'The contact’s consent records, newest first (read-only)',
    tag,
    permission: 'full_access',
    scope: 'contacts:read',
    params,
    query: contactPageQuerySchema,
    isolation,
    responses: { 200: { description: 'A page of consent records', schema: listSchema(consentRecordSchema) } },
    handler: async ({ params, query, caller, services }) => {
      const { records, hasMore } = await services.contacts.consentRecords(caller.team.id, params.contact, query);
      return { status: 200, body: listEnvelope(records.map(publicConsentRecord), hasMore) };
    },
  }),
];
