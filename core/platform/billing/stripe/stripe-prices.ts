import { ConfigError } from '../../../../lib/errors.js';
import { findPlan, PLANS } from '../../plans/plan.catalog.js';
import { ADDONS, findAddon } from '../addon.catalog.js';
import type { SubscriptionItemKind } from '../billing-account.types.js';

export type PriceConfig = { prices: Record<string, string>; overagePrices: Record<string, string> };

/**
 * billing.stripe.prices and overagePrices, checked at start-up against the plan and add-on
 * catalogues, both ways: the price of a code (what checkout and plan change send) and the code of
 * a price (what a subscription read back from Stripe pays for).
 */
export class StripePriceCatalog {
  private readonly byPrice = new Map<string, { kind: SubscriptionItemKind; code: string }>();

  constructor(private readonly config: PriceConfig) {
    const problems: string[] = [];
    const claim = (price: string, kind: SubscriptionItemKind, code: string, key: string) => {
      const taken = this.byPrice.get(price);
      if (taken) problems.push(`${key}: ${price} is already the price of ${taken.code}`);
      else this.byPrice.set(price, { kind, code });
    };
    for (const [code, price] of Object.entries(config.prices)) {
      if (findPlan(code)) claim(price, 'plan', code, `billing.stripe.prices.${code}`);
      else if (findAddon(code)) claim(price, 'addon', code, `billing.stripe.prices.${code}`);
      else
        problems.push(
          `billing.stripe.prices.${code}: not a plan (${PLANS.map((p) => p.code).join(', ')}) or add-on (${ADDONS.map((a) => a.code).join(', ')}) code`,
        );
    }
    for (const [code, price] of Object.entries(config.overagePrices)) {
      if (!findPlan(code)) problems.push(`billing.stripe.overagePrices.${code}: not a plan code`);
      else if (!config.prices[code])
        problems.push(`billing.stripe.overagePrices.${code}: the plan has no price in billing.stripe.prices`);
      else claim(price, 'overage', code, `billing.stripe.overagePrices.${code}`);
    }
    if (!Object.keys(config.prices).some((code) => findPlan(code)))
      problems.push('billing.stripe.prices: map at least one plan code to a Stripe price id');
    if (problems.length > 0)
      throw new ConfigError(`Invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }

  /** The price a plan or add-on code is sold at, if it is sold. */
  priceOf(code: string): string | undefined {
    return this.config.prices[code];
  }

  /** The metered price of a plan's overage, if billed. */
  overagePriceOf(planCode: string): string | undefined {
    return this.config.overagePrices[planCode];
  }

  /** What a price in a subscription pays for (`other`: a price not in the configuration). */
  describe(priceId: string): { kind: SubscriptionItemKind; code: string | null } {
    return this.byPrice.get(priceId) ?? { kind: 'other', code: null };
  }
}
