import { z } from 'zod';
import {
  acceptInvitationSchema,
  createInvitationSchema,
  invitationTokenQuerySchema,
} from '../../../core/accounts/invitation.schemas.js';
import { listEnvelope } from '../../../core/shared/pagination/list-query.js';
import { defineRoute, type RouteResult } from '../../route.js';
import { listSchema, uuidParam } from '../../schemas.js';
import { serializeInvitation, serializeInvitationPreview } from '../../serializers/account.serializer.js';
import { readSessionCookie } from '../../session-cookie.js';
import { invitationPreviewShape, invitationRevokedShape, invitationShape, sessionShape } from './auth-shapes.js';
import { sessionBody, signedIn } from './session.routes.js';
import { answeredId, auditEvent } from '../../audit-events.js';
import type { AuditEvent } from '../../../core/platform/audit/audit.types.js';
import { personActor } from '../../../core/platform/audit/audit-actor.js';

const tag = 'auth';
const exampleToken = 'mailed-invitation-token';

/**
 * Team invitations. Owners and admins of the session's team send, list and revoke them; the
 * addressee previews and accepts with the mailed token, signed in or not (accepting may create
 * the account), under every signup policy.
 */
/** An accepted invitation, in the team's log as the person who joined (the session's answer names both). */
function memberJoined(result: RouteResult): AuditEvent | null {
  const body = result.body as { user?: { id: string; email: string }; current_team?: { id: string } | null };
  if (!body.user || !body.current_team) return null;
  return {
    ...auditEvent('member.joined', 'user', body.user.id, { email: body.user.email, via: 'invitation' }),
    teamId: body.current_team.id,
    actor: personActor(body.user),
  };
}

export const invitationRoutes = [
  defineRoute({
    method: 'POST',
    path: '/auth/invitations',
    operationId: 'createInvitation',
    summary: 'Invite an address into the current team (owner or admin); the link goes by mail',
    tag,
    permission: 'session',
    scope: null,
    body: createInvitationSchema,
    exampleBody: { email: 'bob@example.com', role: 'member' },
    responses: { 201: { description: 'Invited; a pending one to the address is revoked', schema: invitationShape } },
    audit: ({ body }, result) =>
      auditEvent('invitation.created', 'invitation', answeredId(result), {
        email: body.email,
        role: body.role ?? 'member',
      }),
    handler: async ({ body, session, services }) => ({
      status: 201,
      body: serializeInvitation(await services.invitations.create(session, body)),
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/auth/invitations',
    operationId: 'listInvitations',
    summary: 'The current team’s invitations of the last 30 days, newest first (owner or admin)',
    tag,
    permission: 'session',
    scope: null,
    responses: { 200: { description: 'The invitations', schema: listSchema(invitationShape) } },
    handler: async ({ session, services }) => ({
      status: 200,
      body: listEnvelope((await services.invitations.list(session)).map(serializeInvitation), false),
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/auth/invitations/preview',
    operationId: 'previewInvitation',
    summary: 'What an invitation link offers (team, address, role), for the accept page',
    tag,
    permission: 'none',
    scope: null,
    query: invitationTokenQuerySchema,
    exampleQuery: `token=${exampleToken}`,
    responses: { 200: { description: 'A usable invitation', schema: invitationPreviewShape } },
    handler: async ({ query, services }) => ({
      status: 200,
      body: serializeInvitationPreview(await services.invitations.preview(query.token)),
    }),
  }),
  defineRoute({
    method: 'POST',
    path: '/auth/invitations/accept',
    operationId: 'acceptInvitation',
    summary: 'Accept an invitation: signed in as its address, or creating the account (with password)',
    tag,
    permission: 'none',
    scope: null,
    originCheck: true,
    body: acceptInvitationSchema,
    exampleBody: { token: exampleToken, password: 'correct horse', name: 'Bob' },
    responses: {
      200: { description: 'Joined; the session now acts in the team', schema: sessionShape },
      201: { description: 'Account created and signed in; Set-Cookie mailroom_session', schema: sessionShape },
    },
    audit: (_ctx, result) => memberJoined(result),
    handler: async ({ body, headers, services }) => {
      // A 'none' route: the cookie is optional here, so the route resolves it itself.
      const cookie = readSessionCookie(typeof headers.cookie === 'string' ? headers.cookie : undefined);
      const session = cookie ? await services.userSessions.resolve(cookie) : undefined;
      const outcome = await services.invitations.accept(body, session);
      if (outcome.kind === 'created') return signedIn(201, outcome.issued, services);
      return { status: 200, body: await sessionBody(outcome.session, services) };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/auth/invitations/:invitation_id',
    operationId: 'revokeInvitation',
    summary: 'Revoke an invitation of the current team (owner or admin): its link stops working',
    tag,
    permission: 'session',
    scope: null,
    params: z.object({ invitation_id: uuidParam('Invitation id') }),
    // Another team's id answers like a random one (tested with sessions in invitations.test.ts).
    isolation: { param: 'invitation_id', resource: 'invitation' },
    responses: { 200: { description: 'Revoked', schema: invitationRevokedShape } },
    audit: ({ params }) => auditEvent('invitation.revoked', 'invitation', params.invitation_id),
    handler: async ({ params, session, services }) => {
      const revoked = await services.invitations.revoke(session, params.invitation_id);
      return { status: 200, body: { object: 'invitation', id: revoked.id, revoked: true } };
    },
  }),
];
