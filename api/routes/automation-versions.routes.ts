import { z } from 'zod';
import { CONNECTION_TYPES } from '../../core/automations/automation.types.js';
import { RUN_STATUSES } from '../../core/automations/runs/automation-run.types.js';
import type { VersionView } from '../../core/automations/version-reads.js';
import { defineRoute } from '../route.js';

/**
 * The versions of an automation (ours: the spec and the SDK show only the active graph). Every
 * PATCH with steps and connections publishes a new immutable version and runs keep the version
 * they started on, so the dashboard shows which version is active, the runs still pinned to
 * older ones, and draws a run's path on the graph it actually walked.
 */
const tag = 'automations';
const read = 'automations:read';
const params = z.object({ automation_id: z.string().min(1).max(200).describe('Automation id') });
const runParams = params.extend({ run_id: z.string().min(1).max(200).describe('Run id') });
const isolation = { param: 'automation_id', resource: 'automation' };

const versionSchema = z.object({
  object: z.literal('automation_version'),
  id: z.string(),
  number: z.number().int().describe('1 for the version written at creation, then 2, 3, ...'),
  active: z.boolean().describe('The version new runs pin'),
  created_at: z.string(),
  runs: z
    .object(Object.fromEntries(RUN_STATUSES.map((s) => [s, z.number().int()])))
    .describe('Runs pinned to it, by status'),
  steps: z.array(z.object({ key: z.string(), type: z.string(), config: z.record(z.string(), z.unknown()) })),
  connections: z.array(z.object({ from: z.string(), to: z.string(), type: z.enum(CONNECTION_TYPES) })),
});

const publicVersion = ({ version, active, runs }: VersionView) => ({
  object: 'automation_version' as const,
  id: version.id,
  number: version.number,
  active,
  created_at: version.createdAt.toISOString(),
  runs,
  steps: version.steps.map((s) => ({ key: s.key, type: s.type, config: s.config })),
  connections: version.connections.map((c) => ({ from: c.from, to: c.to, type: c.type })),
});

export const automationVersionRoutes = [
  defineRoute({
    method: 'GET',
    path: '/automations/:automation_id/versions',
    operationId: 'listAutomationVersions',
    summary: 'List the versions of an automation, newest first, each with its graph and its runs by status',
    tag,
    permission: 'sending_access',
    scope: read,
    params,
    isolation,
    responses: {
      200: {
        description: 'Every version (an automation has one per published graph: no pages)',
        schema: z.object({ object: z.literal('list'), has_more: z.literal(false), data: z.array(versionSchema) }),
      },
    },
    handler: async ({ params, caller, services }) => {
      const { automation } = await services.automations.get(caller.team.id, params.automation_id);
      const versions = await services.automationVersions.list(automation);
      return { status: 200, body: { object: 'list', has_more: false, data: versions.map(publicVersion) } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/automations/:automation_id/runs/:run_id/version',
    operationId: 'getAutomationRunVersion',
    summary: 'Retrieve the version a run pinned (the graph it walks), with that version’s runs by status',
    tag,
    permission: 'sending_access',
    scope: read,
    params: runParams,
    isolation,
    responses: { 200: { description: 'The version', schema: versionSchema } },
    handler: async ({ params, caller, services }) => {
      const { automation } = await services.automations.get(caller.team.id, params.automation_id);
      return { status: 200, body: publicVersion(await services.automationVersions.ofRun(automation, params.run_id)) };
    },
  }),
];
