import { z } from 'zod';
import { AppError, InvalidParameterError, NotFoundError } from '../../../lib/errors.js';
import { isUuid } from '../../../lib/ids.js';
import { defineRoute } from '../../route.js';
import { uuidParam } from '../../schemas.js';
import {
  actionShape,
  providersShape,
  serializeAction,
  serializeDefaultLimits,
  serializeProviderRule,
  serializeReactionRule,
} from '../../serializers/shaping.serializer.js';

const tag = 'admin';

/** 409 `action_ended`: the action was already over (on its own or lifted); nothing changed. */
export class ActionEndedError extends AppError {
  constructor(message: string) {
    super(409, 'action_ended', message);
  }
}

const listQuery = z
  .object({
    active: z
      .enum(['true'])
      .optional()
      .describe('true: only the actions in force (a slow following a pause counts from the pause on)'),
    provider: z.string().min(1).max(300).optional().describe('a provider rule name, or domain:<name>'),
    ip: z.string().min(2).max(64).optional().describe('the egress address'),
    kind: z.enum(['slow', 'pause', 'suspend_marketing']).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(20),
    after: z
      .string()
      .refine(isUuid, 'must be an action id')
      .transform((value) => value.toLowerCase())
      .optional()
      .describe('the last action id of the previous page'),
  })
  .strict();

/**
 * What traffic shaping did and does (the webhook-free event list of issue 36): the provider
 * rules and reply reactions in force, the actions taken (slow, pause, suspend_marketing), and
 * the operator's "lift it now". `mailroom deliverability ...` does the same.
 */
export const adminShapingRoutes = [
  defineRoute({
    method: 'GET',
    path: '/admin/deliverability/providers',
    operationId: 'adminListShapingProviders',
    summary: 'The provider rules in force (built-in and configured) and the reactions to receivers\u2019 replies',
    tag,
    permission: 'operator',
    scope: null,
    responses: { 200: { description: 'Rules in the order they are tried', schema: providersShape } },
    handler: async ({ services }) => {
      const { shaping } = services;
      return {
        status: 200,
        body: {
          object: 'deliverability_providers',
          enabled: shaping.enabled,
          // A name no rule can match: the matcher answers with the generic default's limits.
          default: serializeDefaultLimits(shaping.providers.forHosts('default.invalid', ['default.invalid']).limits),
          providers: shaping.providers.all().map(serializeProviderRule),
          reactions: shaping.actions.reactionRules().map(serializeReactionRule),
        },
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/admin/deliverability/actions',
    operationId: 'adminListShapingActions',
    summary: 'What shaping did: slows, pauses and marketing suspensions, newest first (after: the last id seen)',
    tag,
    permission: 'operator',
    scope: null,
    query: listQuery,
    exampleQuery: 'active=true',
    responses: {
      200: {
        description: 'A page of actions',
        schema: z.object({ object: z.literal('list'), has_more: z.boolean(), data: z.array(actionShape) }),
      },
      422: { description: 'invalid_parameter: a filter or the cursor is invalid (an unknown `after` id)' },
    },
    handler: async ({ query, services }) => {
      const { actions } = services.shaping;
      const now = services.operatorConsole.now();
      let before: { startedAt: Date; id: string } | undefined;
      if (query.after) {
        const last = await actions.repository.findById(query.after);
        if (!last) throw new InvalidParameterError(`after: no action ${query.after}`);
        before = { startedAt: last.startedAt, id: last.id };
      }
      const page = await actions.repository.page({
        limit: query.limit + 1,
        before,
        kind: query.kind,
        provider: query.provider,
        egressIp: query.ip,
        activeAt: query.active === 'true' ? now : undefined,
      });
      const data = page
        .slice(0, query.limit)
        .map((action) => serializeAction(action, now, actions.factorAt(action, now)));
      return { status: 200, body: { object: 'list', has_more: page.length > query.limit, data } };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/admin/deliverability/actions/:action_id',
    operationId: 'adminLiftShapingAction',
    summary:
      'Lift an action now: the address sends to the provider at its full limits again (every node within seconds)',
    tag,
    permission: 'operator',
    scope: null,
    params: z.object({ action_id: uuidParam('The action id') }),
    responses: {
      200: { description: 'The action, ended now', schema: actionShape },
      404: { description: 'not_found: no such action' },
      409: { description: 'action_ended: it had already ended (on its own or lifted); nothing changed' },
    },
    handler: async ({ params, services }) => {
      const { actions } = services.shaping;
      const found = await actions.repository.findById(params.action_id);
      if (!found) throw new NotFoundError(`No deliverability action ${params.action_id}.`);
      if (!(await actions.end(params.action_id)))
        throw new ActionEndedError(`Action ${params.action_id} already ended at ${found.endsAt.toISOString()}.`);
      const ended = (await actions.repository.findById(params.action_id))!;
      return { status: 200, body: serializeAction(ended, services.operatorConsole.now(), null) };
    },
  }),
];
