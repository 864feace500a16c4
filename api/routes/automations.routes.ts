import { z } from 'zod';
import {
  createAutomationSchema,
  listAutomationsQuerySchema,
  updateAutomationSchema,
} from '../../core/automations/automation.schemas.js';
import { publicAutomation, publicAutomationItem } from '../../core/automations/automation.shape.js';
import { AUTOMATION_STATUSES, CONNECTION_TYPES } from '../../core/automations/automation.types.js';
import { publicRun, publicRunItem } from '../../core/automations/runs/automation-run.shape.js';
import { RUN_STATUSES } from '../../core/automations/runs/automation-run.types.js';
import { listEnvelope, pageQueryShape, withPageRules } from '../../core/shared/pagination/list-query.js';
import { defineRoute } from '../route.js';
import { deletedSchema, listSchema } from '../schemas.js';
import { answeredId, auditEvent } from '../audit-events.js';

/**
 * Automations (document 2, "Automations"): an identity plus immutable versions of the graph.
 * The SDK's `automations` resource is the contract where the spec shows nothing: PATCH, stop,
 * duplicate and delete answer { object: 'automation', id } (stop adds status: 'disabled',
 * delete adds deleted: true); duplicate is POST /automations/{id}/duplicate, 201. Runs are
 * GET /automations/{id}/runs (status: a comma-separated subset of the run statuses) and
 * GET /automations/{id}/runs/{run_id}, shaped as the SDK's AutomationRunItem and AutomationRun.
 */
const tag = 'automations';
const read = 'automations:read';
const write = 'automations:write';
const params = z.object({ automation_id: z.string().min(1).max(200).describe('Automation id') });
const isolation = { param: 'automation_id', resource: 'automation' };
const ref = z.object({ object: z.literal('automation'), id: z.string() });
const status = z.enum(AUTOMATION_STATUSES);
const item = z.object({
  id: z.string(),
  name: z.string(),
  status,
  created_at: z.string(),
  updated_at: z.string().nullable(),
});
const runParams = params.extend({ run_id: z.string().min(1).max(200).describe('Run id') });
const runsQuery = withPageRules(
  z
    .object({
      ...pageQueryShape,
      status: z
        .string()
        .max(200)
        .optional()
        .describe(`Comma-separated subset of ${RUN_STATUSES.join(', ')}`),
    })
    .strict(),
);
const runItem = z.object({
  id: z.string(),
  status: z.enum(RUN_STATUSES),
  started_at: z.string().nullable(),
  completed_at: z.string().nullable(),
  created_at: z.string(),
});
const runStep = z.object({
  key: z.string(),
  type: z.string(),
  status: z.string(),
  output: z.record(z.string(), z.unknown()).nullable(),
  error: z.record(z.string(), z.unknown()).nullable(),
  started_at: z.string().nullable(),
  completed_at: z.string().nullable(),
  created_at: z.string(),
});
const graph = {
  steps: z.array(z.object({ key: z.string(), type: z.string(), config: z.record(z.string(), z.unknown()) })),
  connections: z.array(z.object({ from: z.string(), to: z.string(), type: z.enum(CONNECTION_TYPES) })),
};

const welcome = {
  name: 'Welcome series',
  status: 'disabled' as const,
  steps: [
    { key: 'start', type: 'trigger', config: { event_name: 'svc:contact.created' } },
    { key: 'wait', type: 'delay', config: { duration: '1 day' } },
    { key: 'tag', type: 'contact_update', config: { first_name: 'Friend' } },
  ],
  connections: [
    { from: 'start', to: 'wait' },
    { from: 'wait', to: 'tag' },
  ],
};

export const automationRoutes = [
  defineRoute({
    method: 'POST',
    path: '/automations',
    operationId: 'createAutomation',
    summary:
      'Create an automation (version 1 of its graph; status disabled unless given). An invalid graph is 422 with one error per step key',
    tag,
    permission: 'full_access',
    scope: write,
    body: createAutomationSchema,
    exampleBody: welcome,
    responses: { 201: { description: 'Created', schema: ref } },
    audit: ({ body }, result) =>
      body.status === 'enabled'
        ? auditEvent('automation.started', 'automation', answeredId(result), { name: body.name })
        : null,
    handler: async ({ body, caller, services }) => {
      const automation = await services.automations.create(caller.team.id, body);
      return { status: 201, body: { object: 'automation', id: automation.id } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/automations',
    operationId: 'listAutomations',
    summary: 'List automations, newest first, without their graphs (status filter, search in the name)',
    tag,
    permission: 'sending_access',
    scope: read,
    query: listAutomationsQuerySchema,
    responses: { 200: { description: 'A page of automations', schema: listSchema(item) } },
    handler: async ({ query, caller, services }) => {
      const { automations, hasMore } = await services.automations.list(caller.team.id, query);
      return { status: 200, body: listEnvelope(automations.map(publicAutomationItem), hasMore) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/automations/:automation_id',
    operationId: 'getAutomation',
    summary: 'Retrieve an automation with the steps and connections of its active version',
    tag,
    permission: 'sending_access',
    scope: read,
    params,
    isolation,
    responses: {
      200: { description: 'The automation', schema: item.extend({ object: z.literal('automation'), ...graph }) },
    },
    handler: async ({ params, caller, services }) => {
      const { automation, version } = await services.automations.get(caller.team.id, params.automation_id);
      return { status: 200, body: publicAutomation(automation, version) };
    },
  }),
  defineRoute({
    method: 'PATCH',
    path: '/automations/:automation_id',
    operationId: 'updateAutomation',
    summary: 'Change name or status; steps and connections together publish a new version (runs in flight keep theirs)',
    tag,
    permission: 'full_access',
    scope: write,
    params,
    isolation,
    body: updateAutomationSchema,
    exampleBody: { name: 'Welcome series (v2)', status: 'enabled' },
    responses: { 200: { description: 'Updated', schema: ref } },
    audit: ({ params, body }) =>
      body.status === undefined
        ? null
        : auditEvent(
            body.status === 'enabled' ? 'automation.started' : 'automation.stopped',
            'automation',
            params.automation_id,
          ),
    handler: async ({ params, body, caller, services }) => {
      const automation = await services.automations.update(caller.team.id, params.automation_id, body);
      return { status: 200, body: { object: 'automation', id: automation.id } };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/automations/:automation_id',
    operationId: 'deleteAutomation',
    summary: 'Delete an automation (404 from then on; its live runs are cancelled)',
    tag,
    permission: 'full_access',
    scope: write,
    params,
    isolation,
    responses: { 200: { description: 'Deleted', schema: deletedSchema('automation') } },
    handler: async ({ params, caller, services }) => {
      const automation = await services.automations.remove(caller.team.id, params.automation_id);
      return { status: 200, body: { object: 'automation', id: automation.id, deleted: true } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/automations/:automation_id/stop',
    operationId: 'stopAutomation',
    summary: 'Stop an automation: disabled, and every live run cancelled',
    tag,
    permission: 'full_access',
    scope: write,
    params,
    isolation,
    responses: {
      200: {
        description: 'Stopped',
        schema: z.object({ object: z.literal('automation'), id: z.string(), status: z.literal('disabled') }),
      },
    },
    audit: ({ params }) => auditEvent('automation.stopped', 'automation', params.automation_id),
    handler: async ({ params, caller, services }) => {
      const automation = await services.automations.stop(caller.team.id, params.automation_id);
      return { status: 200, body: { object: 'automation', id: automation.id, status: 'disabled' } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/automations/:automation_id/duplicate',
    operationId: 'duplicateAutomation',
    summary: 'Duplicate an automation: a disabled copy named "<name> (copy)" whose version 1 is the active graph',
    tag,
    permission: 'full_access',
    scope: write,
    params,
    isolation,
    responses: { 201: { description: 'The copy', schema: ref } },
    handler: async ({ params, caller, services }) => {
      const automation = await services.automations.duplicate(caller.team.id, params.automation_id);
      return { status: 201, body: { object: 'automation', id: automation.id } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/automations/:automation_id/runs',
    operationId: 'listAutomationRuns',
    summary:
      'List the runs of an automation, newest first (status: a comma-separated subset of running, completed, failed, cancelled)',
    tag,
    permission: 'sending_access',
    scope: read,
    params,
    isolation,
    query: runsQuery,
    responses: { 200: { description: 'A page of runs', schema: listSchema(runItem) } },
    handler: async ({ params, query, caller, services }) => {
      const { automation } = await services.automations.get(caller.team.id, params.automation_id);
      const { runs, hasMore } = await services.automationRuns.list(automation.id, query);
      return { status: 200, body: listEnvelope(runs.map(publicRunItem), hasMore) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/automations/:automation_id/runs/:run_id',
    operationId: 'getAutomationRun',
    summary: 'Retrieve a run with its steps in graph order (a walk from the trigger of the version it pinned)',
    tag,
    permission: 'sending_access',
    scope: read,
    params: runParams,
    isolation,
    responses: {
      200: {
        description: 'The run',
        schema: runItem.extend({
          object: z.literal('automation_run'),
          contact_id: z.string(),
          error: z.record(z.string(), z.unknown()).nullable(),
          steps: z.array(runStep),
        }),
      },
    },
    handler: async ({ params, caller, services }) => {
      const { automation } = await services.automations.get(caller.team.id, params.automation_id);
      const { run, steps } = await services.automationRuns.get(automation.id, params.run_id);
      return { status: 200, body: publicRun(run, steps) };
    },
  }),
];
