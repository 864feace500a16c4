import { z } from 'zod';
import type { RouteDef } from './route.js';
import { errorBodySchema } from './schemas.js';

type JsonSchema = Record<string, unknown>;

/**
 * JSON Schema (2020-12, what OpenAPI 3.1 uses) of the input side of a zod schema. Exported for
 * the MCP tools, whose input schemas are their routes' (api/mcp/mcp-tools.ts).
 */
export function jsonSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    reused: 'inline',
  }) as JsonSchema;
  return rest;
}

function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function parameters(route: RouteDef): JsonSchema[] {
  const result: JsonSchema[] = [];
  for (const [location, schema] of [
    ['path', route.params],
    ['query', route.query],
  ] as const) {
    if (!schema) {
      if (location === 'path')
        for (const name of route.path.match(/:([A-Za-z0-9_]+)/g) ?? [])
          result.push({ name: name.slice(1), in: 'path', required: true, schema: { type: 'string' } });
      continue;
    }
    const object = jsonSchema(schema) as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, property] of Object.entries(object.properties ?? {})) {
      result.push({
        name,
        in: location,
        required: location === 'path' || (object.required ?? []).includes(name),
        schema: property,
      });
    }
  }
  return result;
}

function responses(route: RouteDef): JsonSchema {
  const result: JsonSchema = {};
  for (const [status, response] of Object.entries(route.responses)) {
    const contentType = response.contentType ?? 'application/json';
    result[status] =
      response.schema || response.contentType
        ? {
            description: response.description,
            content: { [contentType]: { schema: response.schema ? jsonSchema(response.schema) : {} } },
          }
        : { description: response.description };
  }
  result.default = {
    description: 'Error',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
  return result;
}

function operation(route: RouteDef): JsonSchema {
  const op: JsonSchema = {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.deprecated ? { deprecated: true } : {}),
    tags: [route.tag],
    parameters: parameters(route),
    responses: responses(route),
    security:
      route.permission === 'none'
        ? []
        : route.permission === 'session' || route.permission === 'operator'
          ? [{ session: [] }]
          : [{ bearer: [] }],
    'x-svc-permission': route.permission,
    'x-svc-scope': route.scope,
  };
  if (route.surface === 'tracking') {
    op['x-svc-surface'] = 'tracking';
    op.servers = [
      {
        url: 'https://{tracking_host}',
        description: "A tracking host (tracking.host, or a domain's tracking subdomain CNAMEd to it)",
        variables: { tracking_host: { default: 'track.example.com' } },
      },
    ];
  }
  if (route.surface === 'pages') op['x-svc-surface'] = 'pages';
  if (route.idempotent) {
    (op.parameters as JsonSchema[]).push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      schema: { type: 'string', minLength: 1, maxLength: 256 },
    });
  }
  if (route.body) {
    const schema = jsonSchema(route.body);
    // An upload's file part is binary in the form, whatever the schema checks of it once read.
    if (route.upload)
      (schema.properties as Record<string, JsonSchema>)[route.upload.field] = { type: 'string', format: 'binary' };
    op.requestBody = {
      required: true,
      content: {
        [route.upload ? 'multipart/form-data' : 'application/json']: {
          schema,
          ...(route.exampleBody !== undefined ? { example: route.exampleBody } : {}),
        },
      },
    };
  }
  return op;
}

/** The OpenAPI 3.1 document, generated from the route table so it cannot drift from it. */
export function buildOpenApi(routes: RouteDef[], version: string): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Mailroom API', version: '1.0.0', 'x-mailroom-version': version },
    servers: [
      { url: '/', description: 'Base without prefix' },
      { url: '/api/v1', description: 'Base with the /api/v1 prefix' },
    ],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'API key (svc_...) or OAuth access token (svco_...)' },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'mailroom_session',
          description: 'Dashboard session cookie (POST /auth/login); writes must come from the public origin',
        },
      },
      schemas: { Error: jsonSchema(errorBodySchema) },
    },
  };
}
