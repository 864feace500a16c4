import { z } from 'zod';
import {
  createPropertySchema,
  listPropertiesQuerySchema,
  updatePropertySchema,
} from '../../../core/audience/properties/contact-property.schemas.js';
import { publicProperty, publicPropertyItem } from '../../../core/audience/properties/contact-property.shape.js';
import { listEnvelope } from '../../../core/shared/pagination/list-query.js';
import { defineRoute } from '../../route.js';
import { deletedSchema, listSchema } from '../../schemas.js';
import { refSchema } from './audience-schemas.js';

const tag = 'contact-properties';
const params = z.object({ property: z.string().min(1).max(64).describe('Contact property id or key') });
const isolation = { param: 'property', resource: 'contact_property' };
const item = z.object({
  id: z.string(),
  key: z.string(),
  type: z.enum(['string', 'number']),
  fallback_value: z.union([z.string(), z.number()]).nullable(),
  created_at: z.string(),
});

export const contactPropertyRoutes = [
  defineRoute({
    method: 'POST',
    path: '/contact-properties',
    operationId: 'createContactProperty',
    summary: 'Declare a contact property (key and type, fixed once declared)',
    tag,
    permission: 'full_access',
    scope: null,
    body: createPropertySchema,
    exampleBody: { key: 'plan', type: 'string', fallback_value: 'free' },
    responses: { 201: { description: 'Declared', schema: refSchema('contact_property') } },
    handler: async ({ body, caller, services }) => {
      const property = await services.contactProperties.create(caller.team.id, body);
      return { status: 201, body: { object: 'contact_property', id: property.id } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/contact-properties',
    operationId: 'listContactProperties',
    summary: 'List contact properties, newest first',
    tag,
    permission: 'sending_access',
    scope: null,
    query: listPropertiesQuerySchema,
    responses: { 200: { description: 'A page of properties', schema: listSchema(item) } },
    handler: async ({ query, caller, services }) => {
      const { properties, hasMore } = await services.contactProperties.list(caller.team.id, query);
      return { status: 200, body: listEnvelope(properties.map(publicPropertyItem), hasMore) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/contact-properties/:property',
    operationId: 'getContactProperty',
    summary: 'Retrieve a contact property by id or key',
    tag,
    permission: 'sending_access',
    scope: null,
    params,
    isolation,
    responses: {
      200: { description: 'The property', schema: item.extend({ object: z.literal('contact_property') }) },
    },
    handler: async ({ params, caller, services }) => ({
      status: 200,
      body: publicProperty(await services.contactProperties.get(caller.team.id, params.property)),
    }),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/contact-properties/:property',
    operationId: 'updateContactProperty',
    summary: 'Change a property’s fallback value (key and type are fixed)',
    tag,
    permission: 'full_access',
    scope: null,
    params,
    isolation,
    body: updatePropertySchema,
    exampleBody: { fallback_value: 'free' },
    responses: { 200: { description: 'Updated', schema: refSchema('contact_property') } },
    handler: async ({ params, body, caller, services }) => {
      const property = await services.contactProperties.update(caller.team.id, params.property, body);
      return { status: 200, body: { object: 'contact_property', id: property.id } };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/contact-properties/:property',
    operationId: 'deleteContactProperty',
    summary: 'Delete a property and its values (409 resource_locked while a segment filter reads it)',
    tag,
    permission: 'full_access',
    scope: null,
    params,
    isolation,
    responses: { 200: { description: 'Deleted', schema: deletedSchema('contact_property') } },
    handler: async ({ params, caller, services }) => {
      const property = await services.contactProperties.remove(caller.team.id, params.property);
      return { status: 200, body: { object: 'contact_property', id: property.id, deleted: true } };
    },
  }),
];
