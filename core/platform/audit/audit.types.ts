/**
 * The audit log: an append-only record of who did what to which resource of a team, when and
 * from where. Entries never hold a secret, a token or a message body: `metadata` takes only
 * short scalar facts (names, states, roles, counts), and the recorder drops any key that looks
 * like a credential (see audit-metadata.ts).
 */

/** Who acted: a signed-in person, an API key, an OAuth app, an operator, or the appliance itself. */
export type AuditActorType = 'user' | 'api_key' | 'oauth_app' | 'operator' | 'system';

export type AuditActor = {
  type: AuditActorType;
  /** The user, key, OAuth client or operator id; null for the appliance. */
  id: string | null;
  /** What a reader recognises: the person's address, the key's name, the app's name. */
  name: string | null;
};

export type AuditMetadataValue = string | number | boolean | null | readonly string[];
export type AuditMetadata = Readonly<Record<string, AuditMetadataValue>>;

/** What happened, as a route or a service describes it. */
export type AuditEvent = {
  /** `<resource>.<verb>` in the past tense: `api_key.created`, `domain.verified`, `sso.enforced`. */
  action: string;
  resource: { type: string; id: string | null };
  metadata?: AuditMetadata;
  /** Set when the actor is not the request's caller (a sign-in names the person signing in). */
  actor?: AuditActor;
  /** Set when the team is not the caller's (operator actions name the team they act on). */
  teamId?: string;
};

/** Where the request came from; null outside a request (the scheduler, the MTA, a CLI run). */
export type AuditOrigin = { ip: string | null; userAgent: string | null };

/** One stored entry. */
export type AuditEntry = {
  id: string;
  teamId: string;
  action: string;
  actor: AuditActor;
  resource: { type: string; id: string | null };
  metadata: AuditMetadata;
  ip: string | null;
  userAgent: string | null;
  createdAt: Date;
};

/** Who the appliance is when it acts on its own (verification, retention, provider webhooks). */
export const APPLIANCE_ACTOR: AuditActor = { type: 'system', id: null, name: 'Mailroom' };
