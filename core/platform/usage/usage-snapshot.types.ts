/** One period of emails in GET /usage: `used` against `limit`, with what was sent and received. */
export type EmailUsage<L> = { used: number; limit: L; sent: number; received: number; resets_at: string };

/**
 * GET /usage, in the shape the `resend` SDK's `usage.get()` reads (GetUsageResponseSuccess),
 * with `generated_at` as Resend documents it. What each number counts: usage-snapshot.ts.
 */
export type Usage = {
  object: 'usage';
  generated_at: string;
  emails: { daily: EmailUsage<number | null>; monthly: EmailUsage<number> };
  contacts: { used: number; limit: number };
  segments: { used: number; limit: number | null };
  broadcasts: { used: number; limit: null };
  ai_credits: { used: number; limit: number; next_increase_at: string };
  automation_runs: { used: number; limit: number; resets_at: string };
  domains: { used: number; limit: number };
  rate_limit: { limit: number; duration: string };
};
