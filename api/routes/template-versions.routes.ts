import { z } from 'zod';
import { listEnvelope } from '../../core/shared/pagination/list-query.js';
import { listTemplateVersionsQuerySchema } from '../../core/sending/templates/template.schemas.js';
import { defineRoute } from '../route.js';
import { listSchema, uuidParam } from '../schemas.js';
import { serializeTemplateVersion, serializeTemplateVersionItem } from '../serializers/template-version.serializer.js';

/**
 * A template's versions, for the dashboard's diff against the published version and its
 * versions card. Read like GET /templates/:id (same permission, scope, id or alias); the list
 * leaves the content out (html, text and variables can be megabytes per version), the single
 * version has it.
 */
const common = {
  tag: 'templates',
  permission: 'sending_access',
  scope: 'templates:read',
  isolation: { param: 'template_id', resource: 'template' },
} as const;
const params = z.object({ template_id: z.string().min(1).max(63).describe('Template id or alias') });
const versionParams = params.extend({ version_id: uuidParam('Version id (from the list)') });
const item = z.object({
  object: z.literal('template_version'),
  id: z.string(),
  template_id: z.string(),
  version: z.number().int(),
  published: z.boolean().describe('The version sends use'),
  current: z.boolean().describe('The version edits go to (the one GET /templates/{id} shows)'),
  subject: z.string().nullable(),
  from: z.string().nullable(),
  reply_to: z.array(z.string()).nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
const detail = item.extend({
  html: z.string(),
  text: z.string().nullable(),
  variables: z.array(z.object({ key: z.string(), type: z.string(), fallback_value: z.unknown() })),
});

export const templateVersionRoutes = [
  defineRoute({
    ...common,
    method: 'GET',
    path: '/templates/:template_id/versions',
    operationId: 'listTemplateVersions',
    summary: "A template's versions, newest first, without their content",
    params,
    query: listTemplateVersionsQuerySchema,
    responses: { 200: { description: 'A page of versions', schema: listSchema(item) } },
    handler: async ({ params, query, caller, services }) => {
      const { template, versions, hasMore } = await services.templates.versions(
        caller.team.id,
        params.template_id,
        query,
      );
      return {
        status: 200,
        body: listEnvelope(
          versions.map((version) => serializeTemplateVersionItem(template, version)),
          hasMore,
        ),
      };
    },
  }),
  defineRoute({
    ...common,
    method: 'GET',
    path: '/templates/:template_id/versions/:version_id',
    operationId: 'getTemplateVersion',
    summary: 'One version of a template with its content',
    params: versionParams,
    responses: { 200: { description: 'The version', schema: detail } },
    handler: async ({ params, caller, services }) => {
      const { template, version } = await services.templates.version(
        caller.team.id,
        params.template_id,
        params.version_id,
      );
      return { status: 200, body: serializeTemplateVersion(template, version) };
    },
  }),
];
