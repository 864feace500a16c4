/** The admin API's answers the console reads (/admin/..., operators only; see docs/operating/console.md). */

export type QueueSummary = {
  object: 'queue_summary';
  generated_at: string;
  states: Record<string, number>;
  lanes: { lane: string; state: string; count: number }[];
  oldest_due_at: string | null;
  oldest_due_seconds: number | null;
  destinations: { domain: string; state: string; count: number; oldest_seconds: number }[];
  egress: { address: string | null; state: string; count: number }[];
};

export type QueuedDelivery = {
  object: 'queued_delivery';
  id: string;
  email_id: string;
  team_id: string;
  recipient: string;
  recipient_domain: string;
  state: string;
  lane: string;
  attempts: number;
  next_attempt_at: string | null;
  expires_at: string | null;
  last_reply: string | null;
  egress_ip: string | null;
  created_at: string;
};

export type Attempt = {
  at: string | null;
  outcome: string;
  egress_ip: string | null;
  mx_host: string | null;
  reply: string | null;
  duration_ms: number | null;
  transcript?: string | null;
};

export type QueueEmail = {
  object: 'queue_email';
  email: {
    id: string;
    team_id: string;
    from: string;
    subject: string;
    last_event: string | null;
    created_at: string | null;
  } | null;
  deliveries: (Omit<QueuedDelivery, 'object' | 'email_id' | 'team_id' | 'recipient_domain' | 'created_at'> & {
    attempt_log: Attempt[];
  })[];
};

/** Which deliveries a queue action touches: several given narrow the match. */
export type QueueFilter = { email_id?: string; domain?: string; team_id?: string };
export type QueueAction = {
  object: 'queue_action';
  action: 'hold' | 'release' | 'retry' | 'purge';
  filter: { email_id: string | null; domain: string | null; team_id: string | null };
  affected: number;
};

export type CheckStatus = 'ok' | 'warn' | 'fail';

export type EgressAddress = {
  address: string;
  helo: string;
  weight: number;
  in_use: boolean;
  disabled_in_config: boolean;
  disabled_by_operator: { reason: string | null; since: string } | null;
  ptr: { status: CheckStatus; detail: string } | null;
  rests: { destination: string; strikes: number; until: string; reason: string | null }[];
};
export type IpPools = {
  object: 'ip_pools';
  generated_at: string;
  regions: { region: string; addresses: EgressAddress[] }[];
};

export type DoctorCheck = {
  check: string;
  subject: string;
  subject_kind: 'ip' | 'domain' | 'system';
  status: CheckStatus;
  detail: string;
  fix: string | null;
};
export type Deliverability = {
  object: 'deliverability';
  generated_at: string;
  summary: Record<CheckStatus, number>;
  checks: DoctorCheck[];
  blocklists: { address: string; zone: string; status: CheckStatus; listed: boolean; detail: string }[];
};

export type AdminTeam = {
  object: 'team';
  id: string;
  name: string;
  slug: string;
  created_at: string;
  risk_state: string;
  plan: { code: string; name: string; limits?: Record<string, unknown> };
  tier: number;
  suspended: boolean;
};
export type TeamCreated = { object: 'team_created'; team: AdminTeam; api_key: { id: string; token: string } };
export type Marketing = { object: 'marketing'; marketing: 'enabled' | 'paused'; source: string };

export type SystemStatus = {
  object: 'system';
  generated_at: string;
  versions: { app: string; node: string; database: string | null; redis: string | null };
  readiness: {
    status: 'ok' | 'degraded';
    failed: string[];
    checks: { name: string; ok: boolean; duration_ms: number; error: string | null }[];
  };
  database: { dialect: string; ok: boolean; error: string | null };
  redis: { configured: boolean; ok: boolean | null; error: string | null };
  processes: { id: string; node: string; pid: number; started_at?: string; expires_at: string; alive: boolean }[];
  metrics: { enabled: boolean; addresses: string[]; by_process?: { process: string; address: string }[] };
};
export type ErrorLog = {
  object: 'error_log';
  source: string;
  logs_go_to: string;
  data: {
    at: string;
    request_id: string | null;
    method: string;
    path: string;
    status: number;
    team_id: string | null;
    error_name: string | null;
  }[];
};

/** GET /admin/ips/warmup: one warming address (allowance null: no limit today). */
export type IpWarmup = {
  object: 'ip_warmup';
  address: string;
  started_on: string;
  day: number;
  days: number;
  complete: boolean;
  sent_today: number;
  providers: { provider: string; allowance: number | null; sent: number; answers: Record<string, number> }[];
};
/** GET /admin/deliverability/actions: what traffic shaping did (factor_now: a slow's share in force now). */
export type ShapingAction = {
  object: 'deliverability_action';
  id: string;
  kind: 'slow' | 'pause' | 'suspend_marketing';
  provider: string;
  egress_ip: string | null;
  team_id: string | null;
  factor: number | null;
  factor_now: number | null;
  rule_id: string | null;
  reason: string;
  started_at: string;
  ends_at: string;
  active: boolean;
};

/** The plans `POST /admin/teams` and `PATCH /admin/teams/:id` accept. */
export const PLANS = ['free', 'pro', 'scale', 'unlimited'] as const;
export const TIERS = [0, 1, 2, 3] as const;
