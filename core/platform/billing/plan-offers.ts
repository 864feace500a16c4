import { PLANS } from '../plans/plan.catalog.js';
import type { BillingProvider } from './billing-provider.js';

/** A plan as GET /billing/plans lists it: what it includes and, where it is sold, its price. */
export type PlanOffer = {
  object: 'plan';
  code: string;
  name: string;
  /** The provider's monthly price; 0 for the free plan; null where the plan is not sold here. */
  monthly_price_cents: number | null;
  currency: string | null;
  included_emails: number;
  daily_cap: number | null;
  domain_limit: number;
  contact_limit: number;
  ai_credits_monthly: number;
  /** The plan includes per-team single sign-on (OpenID Connect). */
  single_sign_on: boolean;
  /** A team can check out to (or switch to) this plan through the payment provider. */
  purchasable: boolean;
  current: boolean;
};

/**
 * The plans a team can be on (the dashboard's plan picker; the spec leaves a plan list "not
 * shown"). Prices come from the payment provider (the plan's configured price, cached by the
 * adapter); without a provider nothing is purchasable and the operator assigns plans.
 */
export async function listPlanOffers(provider: BillingProvider, currentCode: string): Promise<PlanOffer[]> {
  return Promise.all(
    PLANS.map(async (plan): Promise<PlanOffer> => {
      const sold = provider.configured && provider.sells(plan.code);
      const prices = sold ? await provider.planPrices(plan.code) : null;
      const price = prices ? prices.monthlyPriceCents : plan.code === 'free' ? 0 : null;
      return {
        object: 'plan',
        code: plan.code,
        name: plan.name,
        monthly_price_cents: price,
        currency: prices?.currency ?? null,
        included_emails: plan.limits.included_emails,
        daily_cap: plan.limits.daily_cap,
        domain_limit: plan.limits.domain_limit,
        contact_limit: plan.limits.contact_limit,
        ai_credits_monthly: plan.limits.ai_credits_monthly,
        single_sign_on: plan.sso,
        purchasable: sold,
        current: plan.code === currentCode,
      };
    }),
  );
}
