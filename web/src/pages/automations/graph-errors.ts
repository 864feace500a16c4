import { ApiError, type FieldError } from '../../api/client';

/**
 * The API's whole-graph validation answers 422 with one errors[] entry per offending step
 * (`steps.<key>`), per bad connection (`connections.<index>`) or for the whole graph (`steps`)
 * (core/automations/graph-validation.ts). The editor shows the first on their node, all in a list.
 */
export type GraphErrors = { byStep: Map<string, string>; all: FieldError[] };

export const NO_ERRORS: GraphErrors = { byStep: new Map(), all: [] };

export function graphErrors(error: unknown, stepKeys: string[]): GraphErrors {
  if (!(error instanceof ApiError) || error.fieldErrors.length === 0) return NO_ERRORS;
  const keys = new Set(stepKeys);
  const byStep = new Map<string, string>();
  for (const field of error.fieldErrors) {
    if (!field.path.startsWith('steps.')) continue;
    const key = field.path.slice('steps.'.length);
    // A key may itself contain dots: the whole rest of the path is the key when a step has it.
    if (keys.has(key)) byStep.set(key, field.message);
  }
  return { byStep, all: error.fieldErrors };
}

/** The step a connection error is about, when the graph still has that connection: `from` of connections.<i>. */
export function stepOfPath(path: string): string | undefined {
  return path.startsWith('steps.') ? path.slice('steps.'.length) : undefined;
}
