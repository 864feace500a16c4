import { z } from 'zod';
import { buildOpenApi } from '../openapi.js';
import { defineRoute, type RouteDef } from '../route.js';
import { apiKeyRoutes } from './api-keys.routes.js';
import { authRoutes } from './auth/index.js';
import { audienceRoutes } from './audience/index.js';
import { billingRoutes } from './billing.routes.js';
import { broadcastRoutes } from './campaigns/broadcasts.routes.js';
import { broadcastPreviewRoutes } from './campaigns/broadcast-preview.routes.js';
import { automationRoutes } from './automations.routes.js';
import { automationVersionRoutes } from './automation-versions.routes.js';
import { customEventRoutes } from './custom-events.routes.js';
import { domainClaimRoutes } from './domain-claims.routes.js';
import { domainAutoConfigureRoutes } from './domain-auto-configure.routes.js';
import { domainRoutes } from './domains.routes.js';
import { domainHealthRoutes } from './domain-health.routes.js';
import { dmarcReportRoutes } from './dmarc-reports.routes.js';
import { emailRoutes } from './emails/index.js';
import { emailActivityRoutes } from './emails/activity.routes.js';
import { aiRoutes } from './ai.routes.js';
import { inboxRoutes } from './inboxes/index.js';
import { logRoutes } from './logs.routes.js';
import { auditLogRoutes } from './audit-logs.routes.js';
import { teamMemberRoutes } from './team-members.routes.js';
import { mcpRoutes } from '../mcp/mcp.routes.js';
import { oauthRoutes } from './oauth/index.js';
import { receivingRoutes } from './receiving.routes.js';
import { suppressionRoutes } from './suppressions.routes.js';
import { operationRoutes } from './operations.routes.js';
import { pageRoutes } from './pages.routes.js';
import { emailSharePageRoutes } from './email-share-pages.routes.js';
import { teamRoutes } from './team.routes.js';
import { ssoRoutes } from './sso/index.js';
import { templateRoutes } from './templates.routes.js';
import { templateVersionRoutes } from './template-versions.routes.js';
import { trackingRoutes } from './tracking.routes.js';
import { usageRoutes } from './usage.routes.js';
import { webhookRoutes } from './webhooks.routes.js';
import { adminRoutes } from './admin/index.js';

/** Every route of the API; later capabilities add their lists here. */
export function apiRoutes(version: string, extra: RouteDef[] = []): RouteDef[] {
  const routes: RouteDef[] = [
    ...operationRoutes,
    ...authRoutes,
    ...apiKeyRoutes,
    // Before the domain routes: /domains/claim is not /domains/:domain_id.
    ...domainClaimRoutes,
    ...domainRoutes,
    ...domainHealthRoutes,
    ...dmarcReportRoutes,
    ...domainAutoConfigureRoutes,
    // Before the email routes: /emails/receiving is not /emails/:email_id.
    ...receivingRoutes,
    ...emailRoutes,
    ...emailActivityRoutes,
    ...inboxRoutes,
    ...aiRoutes,
    ...suppressionRoutes,
    ...logRoutes,
    ...auditLogRoutes,
    ...teamMemberRoutes,
    ...teamRoutes,
    ...ssoRoutes,
    ...billingRoutes,
    ...usageRoutes,
    ...templateRoutes,
    ...templateVersionRoutes,
    ...webhookRoutes,
    ...audienceRoutes,
    ...broadcastRoutes,
    ...broadcastPreviewRoutes,
    ...customEventRoutes,
    ...automationRoutes,
    ...automationVersionRoutes,
    ...trackingRoutes,
    ...pageRoutes,
    ...emailSharePageRoutes,
    ...oauthRoutes,
    ...mcpRoutes,
    ...adminRoutes,
    ...extra,
  ];
  let document: Record<string, unknown> | undefined;
  const openapi = defineRoute({
    method: 'GET',
    path: '/openapi.json',
    operationId: 'openapi',
    summary: 'This OpenAPI 3.1 document',
    tag: 'operations',
    permission: 'none',
    scope: null,
    responses: { 200: { description: 'OpenAPI document', schema: z.record(z.string(), z.unknown()) } },
    handler: async () => {
      document ??= buildOpenApi(all, version);
      return { status: 200, body: document };
    },
  });
  const all = [...routes, openapi];
  return all;
}
