import { ValidationError } from '../../lib/errors.js';
import { parseInput } from '../../lib/validation.js';
import { jsonSchema } from '../openapi.js';
import type { RouteDef } from '../route.js';

/**
 * The MCP tool catalogue. A tool is a name for one REST route (by operationId): its scope,
 * input schema and validation are that route's, so the tools cannot drift from x-svc-scope or
 * from what the REST API accepts. A tool whose route has no scope (keys only) is offered to no
 * token until the route declares one.
 */
const CATALOGUE: ReadonlyArray<{ name: string; operationId: string; title: string }> = [
  { name: 'send_email', operationId: 'sendEmail', title: 'Send an email' },
  { name: 'get_email', operationId: 'getEmail', title: 'Get an email' },
  { name: 'list_emails', operationId: 'listEmails', title: 'List sent emails' },
  { name: 'get_email_metrics', operationId: 'getEmailMetrics', title: 'Email metrics' },
  { name: 'list_domains', operationId: 'listDomains', title: 'List domains' },
  { name: 'list_templates', operationId: 'listTemplates', title: 'List templates' },
  { name: 'list_contacts', operationId: 'listContacts', title: 'List contacts' },
  { name: 'list_broadcasts', operationId: 'listBroadcasts', title: 'List broadcasts' },
];

/** The tool argument that becomes the Idempotency-Key header, on routes that take one. */
export const IDEMPOTENCY_ARGUMENT = 'idempotency_key';

type JsonSchema = Record<string, unknown>;
type ObjectSchema = { type?: unknown; properties?: Record<string, JsonSchema>; required?: string[] };

export type McpTool = {
  name: string;
  title: string;
  description: string;
  route: RouteDef;
  inputSchema: { type: 'object'; properties: Record<string, JsonSchema>; required?: string[] };
  /** Argument names that fill the path's `:name` segments, and those sent as the query string. */
  pathNames: string[];
  queryNames: ReadonlySet<string>;
};

/** What a tool call asks of its route: the request the in-process dispatch sends. */
export type ToolRequest = { method: string; path: string; body?: string; idempotencyKey?: string };

/** The catalogue's tools whose routes are in the table (a test app may serve fewer). */
export function toolCatalogue(routes: readonly RouteDef[]): McpTool[] {
  const byOperation = new Map(routes.map((route) => [route.operationId, route]));
  return CATALOGUE.flatMap((entry) => {
    const route = byOperation.get(entry.operationId);
    return route ? [tool(entry, route)] : [];
  });
}

function tool(entry: (typeof CATALOGUE)[number], route: RouteDef): McpTool {
  const pathNames = (route.path.match(/:([A-Za-z0-9_]+)/g) ?? []).map((name) => name.slice(1));
  const params = route.params ? objectSchema(route, route.params) : {};
  const query = route.query ? objectSchema(route, route.query) : {};
  const body = route.body ? objectSchema(route, route.body) : {};
  const properties: Record<string, JsonSchema> = {
    ...Object.fromEntries(pathNames.map((name) => [name, params.properties?.[name] ?? { type: 'string' }])),
    ...query.properties,
    ...body.properties,
  };
  if (route.idempotent) {
    properties[IDEMPOTENCY_ARGUMENT] = {
      type: 'string',
      minLength: 1,
      maxLength: 256,
      description: 'Sent as the Idempotency-Key header: a retry with the same key is answered once',
    };
  }
  const required = [...pathNames, ...(query.required ?? []), ...(body.required ?? [])];
  return {
    name: entry.name,
    title: entry.title,
    description: `${route.summary} (${route.method} ${route.path}; scope ${route.scope ?? 'none: API keys only'})`,
    route,
    inputSchema: { type: 'object', properties, ...(required.length > 0 ? { required } : {}) },
    pathNames,
    queryNames: new Set(Object.keys(query.properties ?? {})),
  };
}

/** Tool arguments are one object, so each input part of the route must be an object schema. */
function objectSchema(route: RouteDef, schema: NonNullable<RouteDef['body']>): ObjectSchema {
  const object = jsonSchema(schema) as ObjectSchema;
  if (object.type !== 'object') throw new Error(`MCP tool for ${route.operationId}: an input is not an object`);
  return object;
}

/**
 * Splits a call's arguments into the route's request: path segments (checked with the route's
 * params schema first, so a missing id is the route's refusal rather than another route's
 * path), query string, JSON body, Idempotency-Key. Arguments the route does not name go where
 * the route's own schema judges them: into the body, or the query string of a route without one.
 */
export function toolRequest(tool: McpTool, args: Record<string, unknown>): ToolRequest {
  const { route } = tool;
  const rest: Record<string, unknown> = { ...args };
  const pathValues: Record<string, unknown> = {};
  for (const name of tool.pathNames) {
    pathValues[name] = rest[name];
    delete rest[name];
  }
  if (route.params) parseInput(route.params, pathValues, 'params');
  let path = route.path;
  for (const name of tool.pathNames) {
    const value = pathValues[name];
    if (typeof value !== 'string' || value === '')
      throw new ValidationError(`${name} must be a non-empty string`, {
        errors: [{ path: name, message: 'must be a non-empty string' }],
      });
    path = path.replace(`:${name}`, encodeURIComponent(value));
  }

  let idempotencyKey: string | undefined;
  if (route.idempotent && IDEMPOTENCY_ARGUMENT in rest) {
    const key = rest[IDEMPOTENCY_ARGUMENT];
    delete rest[IDEMPOTENCY_ARGUMENT];
    if (typeof key !== 'string')
      throw new ValidationError(`${IDEMPOTENCY_ARGUMENT} must be a string`, {
        errors: [{ path: IDEMPOTENCY_ARGUMENT, message: 'must be a string' }],
      });
    idempotencyKey = key;
  }

  const search = new URLSearchParams();
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(rest)) {
    if (value === undefined) continue;
    if (route.body && !tool.queryNames.has(name)) body[name] = value;
    else for (const item of Array.isArray(value) ? value : [value]) search.append(name, queryText(item));
  }
  const query = search.toString();
  return {
    method: route.method,
    path: query === '' ? path : `${path}?${query}`,
    ...(route.body ? { body: JSON.stringify(body) } : {}),
    ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
  };
}

/** Query values are text: numbers and booleans as written, anything else as JSON (the schema judges). */
function queryText(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? String(value)
    : JSON.stringify(value);
}
