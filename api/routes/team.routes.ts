import { z } from 'zod';
import {
  parsePostalAddress,
  postalAddressBody,
  updateTeamSchema,
  type UpdateTeamInput,
} from '../../core/platform/teams/team.schemas.js';
import { defineRoute } from '../route.js';
import { serializeMember, serializeTeam } from '../serializers/team.serializer.js';
import { auditEvent } from '../audit-events.js';

const teamSchema = z
  .object({ object: z.literal('team'), id: z.string(), name: z.string(), slug: z.string() })
  .passthrough();
const tag = 'team';
/** postal_address is checked by parsePostalAddress, whose refusals name the accepted fields. */
const updateTeamBody = updateTeamSchema.extend({ postal_address: postalAddressBody.optional() });

export const teamRoutes = [
  defineRoute({
    method: 'GET',
    path: '/team',
    operationId: 'getTeam',
    summary: 'The team of the calling key',
    tag,
    permission: 'full_access',
    scope: 'team:read',
    responses: { 200: { description: 'The team', schema: teamSchema } },
    handler: async ({ caller, services }) => ({
      status: 200,
      body: serializeTeam(caller.team, await services.sso.summary(caller.team.id)),
    }),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/team',
    operationId: 'updateTeam',
    summary: 'Update the team name, sender identity, AI assist or brand kit',
    tag,
    permission: 'full_access',
    scope: 'team:write',
    body: updateTeamBody,
    exampleBody: { name: 'Acme' },
    responses: { 200: { description: 'The updated team', schema: teamSchema } },
    audit: ({ body, caller }) => auditEvent('team.updated', 'team', caller.team.id, { changed: Object.keys(body) }),
    handler: async ({ body, caller, services }) => {
      const { postal_address: postal, ...rest } = body;
      const input: UpdateTeamInput =
        postal === undefined ? rest : { ...rest, postal_address: parsePostalAddress(postal) };
      const team = await services.teams.update(caller.team, input, caller);
      return { status: 200, body: serializeTeam(team, await services.sso.summary(team.id)) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/team/members',
    operationId: 'listTeamMembers',
    summary: 'Members of the team with their role and MFA use',
    tag,
    permission: 'full_access',
    scope: null,
    responses: {
      200: {
        description: 'Members',
        schema: z.object({ object: z.literal('list'), has_more: z.boolean(), data: z.array(z.unknown()) }),
      },
    },
    handler: async ({ caller, services }) => {
      const members = await services.teams.members(caller.team.id);
      return { status: 200, body: { object: 'list', has_more: false, data: members.map(serializeMember) } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/team/brand-kit/uploads',
    operationId: 'uploadBrandKitFile',
    summary: 'Upload a logo (PNG, JPG or SVG) for the brand kit',
    tag,
    permission: 'full_access',
    scope: 'team:write',
    body: z.object({ content: z.string().min(1, 'must not be empty').describe('base64 image') }).strict(),
    responses: {
      201: {
        description: 'Stored; send the url as brand_kit.logo_url in PATCH /team',
        schema: z.object({
          object: z.literal('brand_kit_upload'),
          url: z.string(),
          content_type: z.string(),
          bytes: z.number(),
          sha256: z.string(),
          width: z.number().nullable(),
          height: z.number().nullable(),
        }),
      },
    },
    audit: ({ caller }, result) =>
      auditEvent('team.brand_asset_uploaded', 'team', caller.team.id, {
        url: (result.body as { url?: string }).url ?? null,
      }),
    handler: async ({ body, caller, services }) => ({
      status: 201,
      body: await services.brandAssets.upload(caller.team.id, body.content),
    }),
  }),
];
