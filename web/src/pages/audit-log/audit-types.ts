/** The audit log's entries (GET /audit-logs, GET /admin/audit-logs; core/platform/audit). */
export type AuditActorType = 'user' | 'api_key' | 'oauth_app' | 'operator' | 'system';

export type AuditLogEntry = {
  object: 'audit_log';
  id: string;
  /** On the operator's list only: whose entry it is. */
  team_id?: string;
  action: string;
  actor: { type: AuditActorType; id: string | null; name: string | null };
  resource: { type: string; id: string | null };
  metadata: Record<string, string | number | boolean | null | string[]>;
  ip: string | null;
  user_agent: string | null;
  created_at: string;
};

export const ACTOR_TYPES: { value: AuditActorType; label: string }[] = [
  { value: 'user', label: 'Person' },
  { value: 'api_key', label: 'API key' },
  { value: 'oauth_app', label: 'Connected app' },
  { value: 'operator', label: 'Operator' },
  { value: 'system', label: 'Mailroom' },
];

export const actorTypeLabel = (type: string) => ACTOR_TYPES.find((item) => item.value === type)?.label ?? type;

/** Actions offered as suggestions in the filter (any `<resource>.<verb>` can be typed). */
export const KNOWN_ACTIONS = [
  'api_key.created',
  'api_key.renamed',
  'api_key.revoked',
  'api_key.suspended',
  'api_key.unsuspended',
  'automation.started',
  'automation.stopped',
  'billing.addon_added',
  'billing.checkout_started',
  'billing.plan_changed',
  'billing.portal_opened',
  'billing.subscription_synced',
  'broadcast.canceled',
  'broadcast.sent',
  'contact_import.created',
  'domain.auto_configured',
  'domain.claim_started',
  'domain.claim_verification_requested',
  'domain.claimed',
  'domain.claimed_away',
  'domain.created',
  'domain.deleted',
  'domain.dkim_rotated',
  'domain.updated',
  'domain.verification_lost',
  'domain.verification_requested',
  'domain.verified',
  'invitation.created',
  'invitation.revoked',
  'member.joined',
  'member.removed',
  'member.role_changed',
  'oauth_grant.created',
  'oauth_grant.revoked',
  'sso.activated',
  'sso.configured',
  'sso.deactivated',
  'sso.deleted',
  'sso.enforced',
  'sso.member_joined',
  'sso.password_bypass',
  'sso.sign_in_failed',
  'sso.signed_in',
  'sso.tested',
  'sso.unenforced',
  'sso.updated',
  'suppression.added',
  'suppression.batch_added',
  'suppression.batch_removed',
  'suppression.removed',
  'team.brand_asset_uploaded',
  'team.created',
  'team.operator_updated',
  'team.resumed',
  'team.suspended',
  'team.updated',
  'user.signed_in',
  'webhook.created',
  'webhook.deleted',
  'webhook.secret_rotated',
  'webhook.updated',
];

/** Resource types offered in the filter. */
export const RESOURCE_TYPES = [
  'api_key',
  'automation',
  'broadcast',
  'contact_import',
  'domain',
  'invitation',
  'oauth_grant',
  'sso_configuration',
  'suppression',
  'team',
  'user',
  'webhook',
];

/** A metadata value as text (lists joined). */
export const metadataText = (value: AuditLogEntry['metadata'][string]) =>
  Array.isArray(value) ? value.join(', ') : value === null ? '—' : String(value);
