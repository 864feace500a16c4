/**
 * Plans are data. A team's plan sets its limits; operators move teams between plans with
 * `mailroom team set-plan`. Numbers for the paid plans are this appliance's defaults (the
 * spec leaves each plan's allowances open).
 */
export type PlanLimits = {
  included_emails: number;
  daily_cap: number | null;
  domain_limit: number;
  webhook_endpoint_limit: number;
  retention_days: number;
  /** Contacts a team may keep (creates and imports past it are refused). */
  contact_limit: number;
  /** Broadcast emails a month (the marketing meter; never the transactional quota). */
  marketing_emails_included: number;
  /** AI credits a month (one per accepted AI request; the AI routes refuse past it). */
  ai_credits_monthly: number;
  /** Automation runs started a month. */
  automation_runs_monthly: number;
  /** Days the team's audit log keeps an entry (auditors ask for a year on the larger plans). */
  audit_retention_days: number;
};

/**
 * `monthlyCap`: included_emails is a hard monthly limit (the free plan); paid plans bill overage instead.
 * `sso`: the plan includes per-team OpenID Connect single sign-on (core/sso).
 */
export type Plan = { code: string; name: string; limits: PlanLimits; monthlyCap: boolean; sso: boolean };

export const PLANS: readonly Plan[] = [
  {
    code: 'free',
    name: 'Free',
    limits: {
      included_emails: 3000,
      daily_cap: 100,
      domain_limit: 1,
      webhook_endpoint_limit: 1,
      retention_days: 30,
      contact_limit: 1000,
      marketing_emails_included: 3000,
      ai_credits_monthly: 25,
      automation_runs_monthly: 1_000,
      audit_retention_days: 30,
    },
    monthlyCap: true,
    sso: false,
  },
  {
    code: 'pro',
    name: 'Pro',
    limits: {
      included_emails: 50000,
      daily_cap: null,
      domain_limit: 10,
      webhook_endpoint_limit: 10,
      retention_days: 90,
      contact_limit: 50_000,
      marketing_emails_included: 250_000,
      ai_credits_monthly: 500,
      automation_runs_monthly: 50_000,
      audit_retention_days: 90,
    },
    monthlyCap: false,
    sso: false,
  },
  {
    code: 'scale',
    name: 'Scale',
    limits: {
      included_emails: 100000,
      daily_cap: null,
      domain_limit: 1000,
      webhook_endpoint_limit: 20,
      retention_days: 180,
      contact_limit: 1_000_000,
      marketing_emails_included: 2_500_000,
      ai_credits_monthly: 2_000,
      automation_runs_monthly: 500_000,
      audit_retention_days: 365,
    },
    monthlyCap: false,
    sso: true,
  },
  // The operator's own teams on their own hardware: no caps beyond what the machine can do.
  {
    code: 'unlimited',
    name: 'Unlimited',
    limits: {
      included_emails: 1_000_000_000,
      daily_cap: null,
      domain_limit: 100000,
      webhook_endpoint_limit: 100,
      retention_days: 365,
      contact_limit: 100_000_000,
      marketing_emails_included: 1_000_000_000,
      ai_credits_monthly: 1_000_000,
      automation_runs_monthly: 1_000_000_000,
      audit_retention_days: 730,
    },
    monthlyCap: false,
    sso: true,
  },
];

const byCode = new Map(PLANS.map((plan) => [plan.code, plan]));

export function findPlan(code: string): Plan | undefined {
  return byCode.get(code);
}

/** The codes of the plans that include single sign-on (for refusals that name them). */
export function ssoPlanCodes(): string[] {
  return PLANS.filter((plan) => plan.sso).map((plan) => plan.code);
}

/** A team whose stored plan code is no longer in the catalogue falls back to the free plan. */
export function planOrFree(code: string): Plan {
  return byCode.get(code) ?? PLANS[0]!;
}
