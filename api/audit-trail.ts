import { auditActorOf, personActor } from '../core/platform/audit/audit-actor.js';
import type { AuditActor, AuditEvent } from '../core/platform/audit/audit.types.js';
import type { Services } from '../app/services.js';
import type { RouteContext, RouteDef, RouteResult } from './route.js';

type AuditState = { route: RouteDef; session?: RouteContext<unknown, unknown, unknown>['session'] | undefined };

/**
 * Stages the audit entries a route declares for a successful answer in the request's unit of
 * work: they commit with the answer (and its request-log entry), after the handler's change
 * succeeded, so a refused or failed request records nothing. A change written through the unit
 * (sends, custom events) commits in the same transaction as its entry; one a service wrote on
 * its own is committed just before it.
 * The actor is the request's: the person of a session (an operator on the admin API), the OAuth
 * app of a token, or the API key; the origin is the client's address and User-Agent.
 */
export function stageAuditEntries(
  state: AuditState,
  ctx: RouteContext<unknown, unknown, unknown>,
  result: RouteResult,
  services: Services,
): void {
  const { route } = state;
  if (!route.audit || result.status >= 400) return;
  const declared = route.audit(ctx, result);
  if (!declared) return;
  const events: readonly AuditEvent[] = Array.isArray(declared) ? declared : [declared as AuditEvent];
  const origin = { ip: ctx.clientIp || null, userAgent: headerValue(ctx.headers['user-agent']) };
  for (const event of events) {
    const teamId = event.teamId ?? teamOf(state, ctx);
    const actor = event.actor ?? actorOf(state, ctx);
    if (!teamId || !actor) continue;
    services.audit.stage(ctx.unit, { ...event, teamId, actor }, origin);
  }
}

function teamOf(state: AuditState, ctx: RouteContext<unknown, unknown, unknown>): string | undefined {
  if (state.route.permission === 'session') return state.session?.team?.id;
  if (state.route.permission === 'operator' || state.route.permission === 'none') return undefined;
  return ctx.caller.team.id;
}

function actorOf(state: AuditState, ctx: RouteContext<unknown, unknown, unknown>): AuditActor | undefined {
  const { permission } = state.route;
  if (permission === 'session' || permission === 'operator')
    return state.session ? personActor(state.session.user, permission === 'operator') : undefined;
  if (permission === 'none') return undefined;
  return auditActorOf(ctx.caller);
}

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}
