import { z } from 'zod';
import { oneLine } from '../../lib/validation.js';
import { pageQueryShape, searchParam, withPageRules } from '../shared/pagination/list-query.js';
import { AUTOMATION_STATUSES, CONNECTION_TYPES, MAX_NAME_LENGTH, STEP_TYPES } from './automation.types.js';

/**
 * Input shapes of the automation routes. Only JSON types are checked here (a wrong type is a 400
 * validation_error as everywhere); every rule of the graph (limits, keys, types, edges, configs,
 * references to the team) is graph-validation.ts's, answered 422 validation_error with one
 * errors[] entry per offending step key.
 */
const step = z
  .object({
    key: z.string().describe('Unique within the version'),
    type: z.string().meta({ enum: [...STEP_TYPES] }),
    config: z.record(z.string(), z.unknown()).describe('Shape depends on type'),
  })
  .strict();

const connection = z
  .object({
    from: z.string().describe('Key of the source step'),
    to: z.string().describe('Key of the target step'),
    type: z
      .string()
      .meta({ enum: [...CONNECTION_TYPES] })
      .optional()
      .describe('default (the default), condition_met or condition_not_met'),
  })
  .strict();

const steps = z.array(step).describe('The graph: at most 150 steps, exactly one trigger');
const connections = z.array(connection).describe('Connections between steps, by key');
const name = oneLine(1, MAX_NAME_LENGTH);
const status = z.enum(AUTOMATION_STATUSES);

export const createAutomationSchema = z
  .object({ name, status: status.optional().describe('Default disabled'), steps, connections })
  .strict();

/** steps and connections come together (a new version) or not at all; the service says so (422). */
export const updateAutomationSchema = z
  .object({
    name: name.optional(),
    status: status.optional(),
    steps: steps.optional(),
    connections: connections.optional(),
  })
  .strict();

export const listAutomationsQuerySchema = withPageRules(
  z.object({ ...pageQueryShape, status: status.optional(), search: searchParam(200).optional() }).strict(),
);

export type StepBody = z.infer<typeof step>;
export type ConnectionBody = z.infer<typeof connection>;
export type CreateAutomationInput = z.infer<typeof createAutomationSchema>;
export type UpdateAutomationInput = z.infer<typeof updateAutomationSchema>;
export type ListAutomationsQuery = z.infer<typeof listAutomationsQuerySchema>;
