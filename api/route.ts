import type { z } from 'zod';
import type { SessionCaller } from '../core/accounts/account.types.js';
import type { AuditEvent } from '../core/platform/audit/audit.types.js';
import type { Caller } from '../core/platform/auth/caller.js';
import type { Services } from '../app/services.js';
import type { UnitOfWork } from '../db/unit-of-work.js';

/**
 * The route table is the single description of the API: the pipeline dispatches from it, the
 * OpenAPI document is generated from it, and the tenant-isolation test walks it. A route
 * without a declared permission is refused at start-up.
 */
/** 'operator': the admin API, reached only by an operator's dashboard session with MFA on (api/operator-auth.ts). */
export type Permission = 'sending_access' | 'full_access' | 'session' | 'operator' | 'none' | null;
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type RouteResult = {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** A binary answer (served files) instead of JSON. */
  raw?: { contentType: string; bytes: Buffer };
  /** The email this request created, linked from its request log. */
  emailId?: string | null;
  /** A failure the handler answered for anyway (the open pixel is always served): logged, not shown. */
  error?: unknown;
};

export type RouteContext<P, Q, B> = {
  params: P;
  query: Q;
  body: B;
  /** The caller. Routes with permission 'none' must not read it (it is absent there). */
  caller: Caller;
  /**
   * The dashboard session (user, current team, role). Only routes with permission 'session'
   * or 'operator' may read it (the pipeline resolved it from the cookie); it is absent elsewhere.
   */
  session: SessionCaller;
  services: Services;
  requestId: string;
  /** The client's address (behind a trusted proxy, the forwarded one). */
  clientIp: string;
  /** Request headers (lower-case names), for the few routes that read one. */
  headers: Record<string, string | string[] | undefined>;
  /**
   * The request's unit of work. A handler that changes data passes it to the service, which
   * adds its rows; the pipeline commits it after the handler returns, together with the
   * request's log entry and (with an Idempotency-Key) the stored answer: one transaction, one
   * durable commit, before the answer leaves.
   */
  unit: UnitOfWork;
};

type AnySchema = z.ZodType;

export type RouteSpec<P extends AnySchema, Q extends AnySchema, B extends AnySchema> = {
  method: HttpMethod;
  /** Path relative to either base, `:name` for parameters: '/api-keys/:api_key_id'. */
  path: string;
  /**
   * Where the route is served: the API (the default, both bases), or tracking hosts, where
   * recipients' mail clients call without a credential and often without a User-Agent; those
   * routes are answered before, and outside, the API pipeline, but listed in the same table.
   */
  surface?: 'api' | 'tracking' | 'pages';
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
  /**
   * A 'none' route a browser posts to before it has a session (login, signup): refused when
   * its Origin (or Referer) names another site, against login CSRF (see api/session-auth.ts).
   */
  originCheck?: boolean;
  /** Accepts an Idempotency-Key header (sends). */
  idempotent?: boolean;
  /**
   * The body is multipart/form-data with one file (`field`, at most `maxFileBytes`, streamed to
   * `directory` and removed after the request unless the handler moved it) instead of JSON;
   * `body` then validates the text fields and the file (see multipart-body.ts).
   */
  upload?: { field: string; maxFileBytes: number; directory: (services: Services) => string };
  /**
   * The path parameter that names a team-owned resource, and that resource's kind; the
   * tenant-isolation test creates one in another team and expects a 404 like a random id.
   */
  isolation?: { param: string; resource: string };
  /** Kept for integrations written against an older API (OpenAPI `deprecated: true`). */
  deprecated?: boolean;
  /** A valid body, used by the OpenAPI examples and the route-table tests. */
  exampleBody?: z.input<B>;
  /** A valid query string for a route with required query parameters (the route-table tests). */
  exampleQuery?: string;
  responses: Record<number, { description: string; schema?: AnySchema; contentType?: string }>;
  /**
   * What a successful answer records in the team's audit log (issue 40): one event, several, or
   * none (null) for this request. The pipeline adds the actor, team, IP and User-Agent and stages
   * the entries in the request's unit of work. Never put a secret, token or body in `metadata`.
   */
  audit?: (
    ctx: RouteContext<z.output<P>, z.output<Q>, z.output<B>>,
    result: RouteResult,
  ) => AuditEvent | readonly AuditEvent[] | null | undefined;
  handler: (ctx: RouteContext<z.output<P>, z.output<Q>, z.output<B>>) => Promise<RouteResult>;
};

export type RouteDef = RouteSpec<AnySchema, AnySchema, AnySchema>;

export function defineRoute<
  P extends AnySchema = z.ZodObject,
  Q extends AnySchema = z.ZodObject,
  B extends AnySchema = z.ZodUnknown,
>(spec: RouteSpec<P, Q, B>): RouteDef {
  return spec as unknown as RouteDef;
}
