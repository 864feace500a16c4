import type { z } from 'zod';
import type { Authenticated } from '../core/platform/api-keys/api-key.service.js';
import type { Services } from '../app/services.js';
import type { CommitPart } from '../db/group-commit.js';

/**
 * The route table is the single description of the API: the pipeline dispatches from it, the
 * OpenAPI document is generated from it, and the tenant-isolation test walks it. A route
 * without a declared permission is refused at start-up.
 */
export type Permission = 'sending_access' | 'full_access' | 'session' | 'none' | null;
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type RouteResult = {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** A binary answer (served files) instead of JSON. */
  raw?: { contentType: string; bytes: Buffer };
  /** The email this request created, linked from its request log. */
  emailId?: string | null;
};

export type RouteContext<P, Q, B> = {
  params: P;
  query: Q;
  body: B;
  /** The caller. Routes with permission 'none' must not read it (it is absent there). */
  auth: Authenticated;
  services: Services;
  requestId: string;
  /** Request headers (lower-case names), for the few routes that read one. */
  headers: Record<string, string | string[] | undefined>;
  /**
   * This request's log entry as a commit part, for a handler that commits a change: the entry
   * then commits in the same transaction as the change (one durable commit per request, not
   * two). Pass the result the handler will return once that commit succeeds; no second entry is
   * written for it. Empty on requests without a credential (nothing is logged there).
   */
  logWith: (result: RouteResult) => CommitPart[];
};

type AnySchema = z.ZodType;

export type RouteSpec<P extends AnySchema, Q extends AnySchema, B extends AnySchema> = {
  method: HttpMethod;
  /** Path relative to either base, `:name` for parameters: '/api-keys/:api_key_id'. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  /** The least credential reaching the route (x-svc-permission). */
  permission: Permission;
  /** The OAuth scope a token needs, or null (x-svc-scope). */
  scope: string | null;
  params?: P;
  query?: Q;
  body?: B;
  /** Accepts an Idempotency-Key header (sends). */
  idempotent?: boolean;
  /**
   * The path parameter that names a team-owned resource, and that resource's kind; the
   * tenant-isolation test creates one in another team and expects a 404 like a random id.
   */
  isolation?: { param: string; resource: string };
  /** A valid body, used by the OpenAPI examples and the route-table tests. */
  exampleBody?: z.input<B>;
  responses: Record<number, { description: string; schema?: AnySchema; contentType?: string }>;
  handler: (ctx: RouteContext<z.output<P>, z.output<Q>, z.output<B>>) => Promise<RouteResult>;
};

export type RouteDef = RouteSpec<AnySchema, AnySchema, AnySchema>;

export function defineRoute<P extends AnySchema = z.ZodObject, Q extends AnySchema = z.ZodObject, B extends AnySchema = z.ZodUnknown>(
  spec: RouteSpec<P, Q, B>,
): RouteDef {
  return spec as unknown as RouteDef;
}
