/**
 * Traffic shaping per mailbox provider: what a provider tolerates from one sending address,
 * how Mailroom reacts to what it answers, and how a new address warms up. Rules are data
 * (`*.data.ts`, each with its source), overridable in `mta.shaping` / `mta.warmup`.
 */

/** How much mail one egress address may send to one provider. Absent limits do not limit. */
export type ProviderLimits = {
  /** Connections at once from one address, across every mta process and node. */
  maxConnections?: number;
  /** Messages over one connection before it is closed and a new one opened. */
  messagesPerConnection?: number;
  /** Messages per hour from one address (a token bucket holding ten seconds' worth). */
  messagesPerHour?: number;
  /** Milliseconds between two messages on one connection. */
  pacingMs?: number;
  /** Deliver only over TLS (STARTTLS required; the certificate is not verified unless a policy says so). */
  tlsRequired?: boolean;
};

export type ProviderRule = ProviderLimits & {
  /** Short stable name (`gmail`), used in keys, metrics and the API. */
  name: string;
  /** MX host name suffixes that identify the provider (`google.com` matches `aspmx.l.google.com`). */
  mx: string[];
  /** Where the numbers come from (the provider's published guidance, or observed practice). */
  source: string;
};

/** What a reply makes Mailroom do for one (provider, egress address), or for a team and a provider. */
export type ReactionKind = 'slow' | 'pause' | 'suspend_marketing';

export type ReactionRule = {
  id: string;
  /** Provider names it applies to; absent: every provider. */
  providers?: string[];
  /** Basic reply codes it matches (421, 451...); absent: any. */
  codes?: number[];
  /** Enhanced status codes it matches (`4.7.28`); absent: any. */
  enhanced?: string[];
  /** A case-insensitive regular expression the reply text must match; absent: any. */
  text?: string;
  action: Exclude<ReactionKind, 'suspend_marketing'>;
  /** How long a pause lasts. */
  pauseSeconds?: number;
  /** The message that drew the reply: retried later (default), or classified as usual. */
  message?: 'defer' | 'classify';
  /** Where the reply's meaning is documented, and a real example of it. */
  source: string;
  example: string;
};

/** An action in force (or ended): rows of `deliverability_actions`. */
export type DeliverabilityAction = {
  id: string;
  kind: ReactionKind;
  provider: string;
  /** The egress address it applies to; null for a team's marketing suspension. */
  egressIp: string | null;
  teamId: string | null;
  /** For `slow`: the share of the provider's limits in force when it started (0.5, 0.25...). */
  factor: number | null;
  ruleId: string | null;
  reason: string;
  startedAt: Date;
  endsAt: Date;
};

/** Day-by-day messages per provider for an address warming up; `default` for every other provider. */
export type WarmupSchedule = Record<string, number[]>;
