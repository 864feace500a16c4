import { z } from 'zod';
import { contactPageQuerySchema } from '../../../core/audience/contacts/contact.schemas.js';
import { listEnvelope } from '../../../core/shared/pagination/list-query.js';
import { defineRoute } from '../../route.js';
import { listSchema } from '../../schemas.js';
import { contactParam } from './audience-schemas.js';

/**
 * Beyond the spec, for the dashboard's contact page: the events recorded for one contact, newest
 * first (custom events sent with POST /events/send, and platform events `svc:...` recorded for
 * automation triggers). Like GET /events, it needs a full_access credential: payloads are the
 * product's data.
 */
const contactEventSchema = z.object({
  object: z.literal('contact_event'),
  id: z.string(),
  contact_id: z.string(),
  event: z.string(),
  payload: z.record(z.string(), z.unknown()),
  created_at: z.string(),
});

export const contactEventRoutes = [
  defineRoute({
    method: 'GET',
    path: '/contacts/:contact/events',
    operationId: 'listContactEvents',
    summary: 'The events recorded for the contact (custom and svc: platform events), newest first',
    tag: 'contacts',
    permission: 'full_access',
    scope: 'events:read',
    params: z.object({ contact: contactParam }),
    query: contactPageQuerySchema,
    isolation: { param: 'contact', resource: 'contact' },
    responses: { 200: { description: 'A page of the contact’s events', schema: listSchema(contactEventSchema) } },
    handler: async ({ params, query, caller, services }) => {
      const contact = await services.contacts.find(caller.team.id, params.contact);
      const { events, hasMore } = await services.contactEvents.list(caller.team.id, contact.id, query);
      const data = events.map((e) => ({
        object: 'contact_event' as const,
        id: e.id,
        contact_id: contact.id,
        event: e.event,
        payload: e.payload,
        created_at: e.createdAt.toISOString(),
      }));
      return { status: 200, body: listEnvelope(data, hasMore) };
    },
  }),
];
