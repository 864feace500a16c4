import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

export type PageProps = { params: Record<string, string> };
type Page = LazyExoticComponent<ComponentType<PageProps>>;

/**
 * Every page of the dashboard, each its own chunk (loaded when first opened). `public` pages
 * are for people without a session (sign-in, links from mail); the rest sit in the shell with
 * the navigation. `nav` names the navigation entry a page belongs to, to show where you are.
 */
export type RouteEntry = { path: string; page: Page; public?: boolean; nav?: string };

const page = (load: () => Promise<{ default: ComponentType<PageProps> }>) => lazy(load);

export const ROUTES: RouteEntry[] = [
  { path: '/login', page: page(() => import('./pages/auth/login.page')), public: true },
  { path: '/signup', page: page(() => import('./pages/auth/signup.page')), public: true },
  { path: '/verify-email', page: page(() => import('./pages/auth/verify-email.page')), public: true },
  { path: '/forgot-password', page: page(() => import('./pages/auth/forgot-password.page')), public: true },
  { path: '/reset-password', page: page(() => import('./pages/auth/reset-password.page')), public: true },
  { path: '/invitations/accept', page: page(() => import('./pages/auth/accept-invitation.page')), public: true },

  { path: '/emails', page: page(() => import('./pages/emails/emails-list.page')), nav: 'emails' },
  { path: '/emails/:id', page: page(() => import('./pages/emails/email-detail.page')), nav: 'emails' },
  { path: '/received', page: page(() => import('./pages/received/received-list.page')), nav: 'received' },
  { path: '/received/:id', page: page(() => import('./pages/received/received-detail.page')), nav: 'received' },
  { path: '/inboxes', page: page(() => import('./pages/inboxes/inboxes-list.page')), nav: 'inboxes' },
  { path: '/inboxes/:id', page: page(() => import('./pages/inboxes/inbox.page')), nav: 'inboxes' },
  {
    path: '/inboxes/:id/threads/:threadId',
    page: page(() => import('./pages/inboxes/thread.page')),
    nav: 'inboxes',
  },
  { path: '/domains', page: page(() => import('./pages/domains/domains-list.page')), nav: 'domains' },
  { path: '/domains/:id', page: page(() => import('./pages/domains/domain-detail.page')), nav: 'domains' },
  { path: '/templates', page: page(() => import('./pages/templates/templates-list.page')), nav: 'templates' },
  { path: '/templates/:id', page: page(() => import('./pages/templates/template-editor.page')), nav: 'templates' },
  { path: '/metrics', page: page(() => import('./pages/metrics/metrics.page')), nav: 'metrics' },
  { path: '/suppressions', page: page(() => import('./pages/suppressions/suppressions.page')), nav: 'suppressions' },
  { path: '/api-keys', page: page(() => import('./pages/api-keys/api-keys.page')), nav: 'api-keys' },
  { path: '/webhooks', page: page(() => import('./pages/webhooks/webhooks-list.page')), nav: 'webhooks' },
  { path: '/webhooks/:id', page: page(() => import('./pages/webhooks/webhook-detail.page')), nav: 'webhooks' },
  { path: '/logs', page: page(() => import('./pages/logs/logs-list.page')), nav: 'logs' },
  { path: '/logs/:id', page: page(() => import('./pages/logs/log-detail.page')), nav: 'logs' },
  { path: '/team', page: page(() => import('./pages/team/team.page')), nav: 'team' },
  { path: '/team/sso', page: page(() => import('./pages/team/sso.page')), nav: 'team' },
  { path: '/audit-log', page: page(() => import('./pages/audit-log/audit-log.page')), nav: 'audit-log' },
  { path: '/billing', page: page(() => import('./pages/billing/billing.page')), nav: 'billing' },
  { path: '/account', page: page(() => import('./pages/account/account.page')), nav: 'account' },
  // The operator console (operators only: the admin API refuses everyone else).
  { path: '/admin/queue', page: page(() => import('./pages/admin/queue.page')), nav: 'admin-queue' },
  { path: '/admin/ip-pools', page: page(() => import('./pages/admin/ip-pools.page')), nav: 'admin-ip-pools' },
  {
    path: '/admin/deliverability',
    page: page(() => import('./pages/admin/deliverability.page')),
    nav: 'admin-deliverability',
  },
  { path: '/admin/teams', page: page(() => import('./pages/admin/teams.page')), nav: 'admin-teams' },
  { path: '/admin/teams/:id', page: page(() => import('./pages/admin/team-detail.page')), nav: 'admin-teams' },
  { path: '/admin/system', page: page(() => import('./pages/admin/system.page')), nav: 'admin-system' },
  { path: '/admin/audit-log', page: page(() => import('./pages/admin/audit-log.page')), nav: 'admin-audit-log' },
  { path: '/automations', page: page(() => import('./pages/automations/automations-list.page')), nav: 'automations' },
  { path: '/automations/:id', page: page(() => import('./pages/automations/automation.page')), nav: 'automations' },
  {
    path: '/automations/:id/runs/:runId',
    page: page(() => import('./pages/automations/run.page')),
    nav: 'automations',
  },
  { path: '/broadcasts', page: page(() => import('./pages/broadcasts/broadcasts-list.page')), nav: 'broadcasts' },
  { path: '/broadcasts/:id', page: page(() => import('./pages/broadcasts/broadcast.page')), nav: 'broadcasts' },
  { path: '/segments', page: page(() => import('./pages/segments/segments-list.page')), nav: 'segments' },
  { path: '/segments/:id', page: page(() => import('./pages/segments/segment.page')), nav: 'segments' },
  { path: '/imports', page: page(() => import('./pages/imports/imports.page')), nav: 'imports' },
  { path: '/imports/:id', page: page(() => import('./pages/imports/import.page')), nav: 'imports' },
  { path: '/contacts', page: page(() => import('./pages/contacts/contacts-list.page')), nav: 'contacts' },
  { path: '/contacts/:id', page: page(() => import('./pages/contacts/contact.page')), nav: 'contacts' },
  { path: '/properties', page: page(() => import('./pages/properties/properties.page')), nav: 'properties' },
  { path: '/topics', page: page(() => import('./pages/topics/topics.page')), nav: 'topics' },
  { path: '/events', page: page(() => import('./pages/events/events.page')), nav: 'events' },
];

/** The navigation, in the order a sender works: what was sent, then set-up. */
export const NAV: { id: string; label: string; to: string; group: string; adminOnly?: boolean }[] = [
  { id: 'emails', label: 'Emails', to: '/emails', group: 'Sending' },
  { id: 'received', label: 'Received', to: '/received', group: 'Sending' },
  { id: 'inboxes', label: 'Inboxes', to: '/inboxes', group: 'Sending' },
  { id: 'metrics', label: 'Metrics', to: '/metrics', group: 'Sending' },
  { id: 'templates', label: 'Templates', to: '/templates', group: 'Sending' },
  { id: 'suppressions', label: 'Suppressions', to: '/suppressions', group: 'Sending' },
  { id: 'domains', label: 'Domains', to: '/domains', group: 'Set-up' },
  { id: 'api-keys', label: 'API keys', to: '/api-keys', group: 'Set-up' },
  { id: 'webhooks', label: 'Webhooks', to: '/webhooks', group: 'Set-up' },
  { id: 'logs', label: 'Logs', to: '/logs', group: 'Set-up' },
  { id: 'team', label: 'Team', to: '/team', group: 'Set-up' },
  // Owners and admins only (the API refuses a member the audit log): the shell hides it from members.
  { id: 'audit-log', label: 'Audit log', to: '/audit-log', group: 'Set-up', adminOnly: true },
  { id: 'billing', label: 'Billing', to: '/billing', group: 'Set-up' },
  // Shown instead of the team's entries to an operator (layout/shell.tsx).
  { id: 'admin-queue', label: 'Queue', to: '/admin/queue', group: 'Operator' },
  { id: 'admin-ip-pools', label: 'IP pools', to: '/admin/ip-pools', group: 'Operator' },
  { id: 'admin-deliverability', label: 'Deliverability', to: '/admin/deliverability', group: 'Operator' },
  { id: 'admin-teams', label: 'Teams', to: '/admin/teams', group: 'Operator' },
  { id: 'admin-system', label: 'System', to: '/admin/system', group: 'Operator' },
  { id: 'admin-audit-log', label: 'Audit log', to: '/admin/audit-log', group: 'Operator' },
  { id: 'contacts', label: 'Contacts', to: '/contacts', group: 'Audience' },
  { id: 'properties', label: 'Properties', to: '/properties', group: 'Audience' },
  { id: 'topics', label: 'Topics', to: '/topics', group: 'Audience' },
  { id: 'events', label: 'Events', to: '/events', group: 'Audience' },
  { id: 'segments', label: 'Segments', to: '/segments', group: 'Audience' },
  { id: 'imports', label: 'Imports', to: '/imports', group: 'Audience' },
  { id: 'broadcasts', label: 'Broadcasts', to: '/broadcasts', group: 'Audience' },
  { id: 'automations', label: 'Automations', to: '/automations', group: 'Audience' },
];
