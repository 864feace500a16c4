import { z } from 'zod';
import {
  InvalidParameterError,
  MissingRequiredFieldError,
  MissingRequiredParameterError,
  UnprocessableValidationError,
  ValidationError,
  type FieldError,
} from './errors.js';

/**
 * Turns zod results into the spec's refusals:
 * - body: an absent required field is 422 missing_required_field, anything else 400 validation_error;
 * - query and path: an absent required parameter is 422 missing_required_parameter, a malformed
 *   one or a bad enum 422 invalid_parameter.
 * - a body whose only problems are refinements marked `unprocessable` (well-formed, but a value
 *   the appliance will not take, e.g. a hidden character in an address) is 422 validation_error.
 * Every refusal lists one { path, message } per problem.
 */
export type InputPart = 'body' | 'query' | 'params' | 'headers';

export function parseInput<T extends z.ZodType>(schema: T, input: unknown, part: InputPart): z.infer<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = result.error.issues.flatMap(unprocessableBranch);
  const missing = issues.filter((issue) => isMissing(issue, input));
  const toFieldError = (issue: z.core.$ZodIssue): FieldError => ({
    path: pathOf(issue),
    message: messageOf(issue, input),
  });
  if (part === 'body' || part === 'headers') {
    if (missing.length > 0 && part === 'body') {
      throw new MissingRequiredFieldError(
        `Missing required field${missing.length > 1 ? 's' : ''}: ${missing.map(pathOf).join(', ')}`,
        {
          errors: missing.map(toFieldError),
        },
      );
    }
    const errors = issues.map(toFieldError);
    if (part === 'body' && issues.every(isUnprocessable))
      throw new UnprocessableValidationError(summarise(errors), { errors });
    throw new ValidationError(summarise(errors), { errors });
  }
  if (missing.length > 0) {
    throw new MissingRequiredParameterError(`Missing required parameter: ${missing.map(pathOf).join(', ')}`, {
      errors: missing.map(toFieldError),
    });
  }
  const errors = issues.map(toFieldError);
  throw new InvalidParameterError(summarise(errors), { errors });
}

/** Refinement params for a value that is well-formed but refused: answered 422, not 400. */
export function unprocessable(message: string): { message: string; abort: true; params: { unprocessable: true } } {
  return { message, abort: true, params: { unprocessable: true } };
}

/**
 * A union (`to`: one address or a list) reports only "Invalid input" when every branch fails;
 * when one branch failed only on an unprocessable refinement, that refinement is the answer.
 */
function unprocessableBranch(issue: z.core.$ZodIssue): z.core.$ZodIssue[] {
  if (issue.code !== 'invalid_union') return [issue];
  const branch = issue.errors.find((branchIssues) => branchIssues.length > 0 && branchIssues.every(isUnprocessable));
  return branch ? branch.map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] })) : [issue];
}

function isUnprocessable(issue: z.core.$ZodIssue): boolean {
  return issue.code === 'custom' && (issue.params as { unprocessable?: boolean } | undefined)?.unprocessable === true;
}

function summarise(errors: FieldError[]): string {
  const first = errors[0];
  if (!first) return 'Invalid input';
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  return `${first.path ? `${first.path}: ` : ''}${first.message}${more}`;
}

function pathOf(issue: z.core.$ZodIssue): string {
  return issue.path.map(String).join('.');
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let node = input;
  for (const part of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[part];
  }
  return node;
}

/** A field is missing when its schema refused `undefined` (whatever the check: type, enum, union). */
function isMissing(issue: z.core.$ZodIssue, input: unknown): boolean {
  if (issue.code === 'custom' || issue.code === 'unrecognized_keys' || issue.path.length === 0) return false;
  return valueAt(input, issue.path) === undefined;
}

function messageOf(issue: z.core.$ZodIssue, input: unknown): string {
  if (isMissing(issue, input)) return 'is required';
  if (issue.code === 'unrecognized_keys')
    return `unknown field${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}`;
  return issue.message;
}

/** A single line of text (no CR, LF or other control characters), length in characters. */
export function oneLine(min: number, max: number) {
  return z
    .string()
    .min(min, min === 1 ? 'must not be empty' : `must be at least ${min} characters`)
    .max(max, `must be at most ${max} characters`)
    .refine((value) => !/[\u0000-\u001f\u007f]/.test(value), 'must be a single line without control characters');
}
