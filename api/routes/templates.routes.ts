import { z } from 'zod';
import { listEnvelope } from '../../core/shared/pagination/list-query.js';
import { STARTERS } from '../../core/sending/templates/starters.js';
import {
  createTemplateSchema,
  listTemplatesQuerySchema,
  updateTemplateSchema,
} from '../../core/sending/templates/template.schemas.js';
import { defineRoute } from '../route.js';
import { deletedSchema, listSchema } from '../schemas.js';
import { serializeStarter, serializeTemplate, serializeTemplateItem } from '../serializers/template.serializer.js';

const tag = 'templates';
const params = z.object({ template_id: z.string().min(1).max(63).describe('Template id or alias') });
const isolation = { param: 'template_id', resource: 'template' };
const ref = z.object({ object: z.literal('template'), id: z.string() });
const item = z
  .object({
    object: z.literal('template'),
    id: z.string(),
    name: z.string(),
    alias: z.string().nullable(),
    status: z.string(),
  })
  .passthrough();

export const templateRoutes = [
  defineRoute({
    method: 'POST',
    path: '/templates',
    operationId: 'createTemplate',
    summary: 'Create a template (a draft, version 1) from html or a starter',
    tag,
    permission: 'full_access',
    scope: null,
    body: createTemplateSchema,
    exampleBody: {
      name: 'Welcome',
      html: '<p>Hi {{name}}</p>',
      variables: [{ key: 'name', type: 'string', fallback_value: 'there' }],
    },
    responses: { 201: { description: 'Created', schema: ref } },
    handler: async ({ body, caller, services }) => ({
      status: 201,
      body: { id: (await services.templates.create(caller.team.id, body)).id, object: 'template' },
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/templates',
    operationId: 'listTemplates',
    summary: 'List templates, most recently changed first, without content',
    tag,
    permission: 'sending_access',
    scope: 'templates:read',
    query: listTemplatesQuerySchema,
    responses: { 200: { description: 'A page of templates', schema: listSchema(item) } },
    handler: async ({ query, caller, services }) => {
      const { templates, hasMore } = await services.templates.list(caller.team.id, query);
      return { status: 200, body: listEnvelope(templates.map(serializeTemplateItem), hasMore) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/templates/:template_id',
    operationId: 'getTemplate',
    summary: 'Retrieve a template by id or alias with its current version',
    tag,
    permission: 'sending_access',
    scope: 'templates:read',
    params,
    isolation,
    responses: { 200: { description: 'The template', schema: item } },
    handler: async ({ params, caller, services }) => ({
      status: 200,
      body: serializeTemplate(await services.templates.get(caller.team.id, params.template_id)),
    }),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/templates/:template_id',
    operationId: 'updateTemplate',
    summary: 'Update a template; on a published one this opens a draft version',
    tag,
    permission: 'full_access',
    scope: null,
    params,
    isolation,
    body: updateTemplateSchema,
    exampleBody: { name: 'Renamed' },
    responses: { 200: { description: 'Updated', schema: ref } },
    handler: async ({ params, body, caller, services }) => ({
      status: 200,
      body: { id: (await services.templates.update(caller.team.id, params.template_id, body)).id, object: 'template' },
    }),
  }),
  defineRoute({
    method: 'POST',
    path: '/templates/:template_id/publish',
    operationId: 'publishTemplate',
    summary: 'Publish the current version: sends use it from now on',
    tag,
    permission: 'full_access',
    scope: null,
    params,
    isolation,
    responses: { 200: { description: 'Published', schema: ref } },
    handler: async ({ params, caller, services }) => ({
      status: 200,
      body: { id: (await services.templates.publish(caller.team.id, params.template_id)).id, object: 'template' },
    }),
  }),
  defineRoute({
    method: 'POST',
    path: '/templates/:template_id/duplicate',
    operationId: 'duplicateTemplate',
    summary: 'Copy a template into a new draft (without its alias)',
    tag,
    permission: 'full_access',
    scope: null,
    params,
    isolation,
    responses: { 200: { description: 'The copy', schema: ref } },
    handler: async ({ params, caller, services }) => ({
      status: 200,
      body: { id: (await services.templates.duplicate(caller.team.id, params.template_id)).id, object: 'template' },
    }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/templates/:template_id',
    operationId: 'deleteTemplate',
    summary: 'Delete a template; its alias becomes free',
    tag,
    permission: 'full_access',
    scope: null,
    params,
    isolation,
    responses: { 200: { description: 'Deleted', schema: deletedSchema('template') } },
    handler: async ({ params, caller, services }) => ({
      status: 200,
      body: {
        object: 'template',
        id: (await services.templates.remove(caller.team.id, params.template_id)).id,
        deleted: true,
      },
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/starters',
    operationId: 'listStarters',
    summary: 'Starter templates to create from (POST /templates with starter)',
    tag,
    permission: 'sending_access',
    scope: 'templates:read',
    responses: {
      200: {
        description: 'Every starter',
        schema: z.object({ object: z.literal('list'), has_more: z.boolean(), data: z.array(z.unknown()) }),
      },
    },
    handler: async () => ({
      status: 200,
      body: { object: 'list', has_more: false, data: STARTERS.map(serializeStarter) },
    }),
  }),
];
