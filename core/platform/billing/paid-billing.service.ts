import {
  InvalidParameterError,
  InvalidPermissionError,
  MissingRequiredFieldError,
  ServiceUnavailableError,
  UnprocessableValidationError,
} from '../../../lib/errors.js';
import type { Caller } from '../auth/caller.js';
import { findPlan, PLANS } from '../plans/plan.catalog.js';
import { ADDONS, findAddon, type Addon } from './addon.catalog.js';
import type { BillingAccounts } from './billing-accounts.service.js';
import { hasSubscription, isHeld, type BillingAccount } from './billing-account.types.js';
import {
  notConfiguredError,
  type BillingProvider,
  type CheckoutSession,
  type InvoiceList,
  type PortalSession,
} from './billing-provider.js';
import {
  isHttpsUrl,
  PORTAL_RETURN_PATH,
  RETURN_PATHS,
  storagePurchase,
  withQueryParam,
  type ReturnTo,
} from './billing-rules.js';
import type { InvoiceCache } from './invoice-cache.js';

export type CheckoutInput = {
  plan_code?: string;
  addon_code?: string;
  return_url?: string;
  return_to?: ReturnTo;
  quantity?: number;
};
export type AddonInput = { addon_code: string; quantity?: number };

export type PaidBillingDeps = {
  provider: BillingProvider;
  accounts: BillingAccounts;
  invoices: InvoiceCache;
  /** Where people open the dashboard (the return and portal URLs point there). */
  dashboardUrl: () => string;
  /** Whether the team has single sign-on set up (core/sso); absent: never. */
  ssoConfigured?: (teamId: string) => Promise<boolean>;
};

const field = (path: string, message: string) => ({ errors: [{ path, message }] });
const needsCheckout = (message: string) => new UnprocessableValidationError(message, { details: { next: 'checkout' } });

/**
 * The paid billing routes with every rule of the spec, whatever the provider: POST
 * /billing/checkout, /billing/portal, /billing/plan, /billing/addons and GET /billing/invoices.
 * With no provider every one of them answers 503 first. Card details never pass through here:
 * checkout and the portal are pages of the provider.
 *
 * Single sign-on: the spec's rule that a change turning it off needs a signed-in admin applies to
 * a plan change to a plan without it (plan.catalog.ts `sso`) while the team has it configured:
 * refused for keys and OAuth tokens (403 invalid_permission), allowed for a signed-in owner or
 * admin, after which it is out of use (see SsoService.planChanged, run where the plan is set).
 * No `sso` add-on is sold, and a plan change here keeps every add-on item.
 */
export class PaidBillingService {
  constructor(private readonly deps: PaidBillingDeps) {}

  async checkout(caller: Caller, input: CheckoutInput): Promise<CheckoutSession> {
    this.assertConfigured();
    const wantsPlan = input.plan_code !== undefined;
    if (!wantsPlan && input.addon_code === undefined)
      throw new MissingRequiredFieldError(
        'Send plan_code or addon_code',
        field('plan_code', 'plan_code or addon_code is required'),
      );
    if (wantsPlan && input.addon_code !== undefined)
      throw new InvalidParameterError(
        'Send plan_code or addon_code, not both',
        field('addon_code', 'not allowed with plan_code'),
      );
    if (input.return_url !== undefined && !isHttpsUrl(input.return_url))
      throw new UnprocessableValidationError(
        'return_url must be an absolute https URL',
        field('return_url', 'must be an absolute https URL'),
      );
    if (wantsPlan && input.quantity !== undefined)
      throw new UnprocessableValidationError(
        'quantity is for addon_code only',
        field('quantity', 'only with addon_code'),
      );
    const quantity = input.quantity ?? 1;
    const code = wantsPlan ? this.sellablePlan(input.plan_code!) : this.sellableAddon(input.addon_code!, quantity).code;
    const account = await this.deps.accounts.find(caller.team.id);
    if (hasSubscription(account))
      throw new UnprocessableValidationError(
        'The team already has a subscription: change its plan with POST /billing/plan and add add-ons with POST /billing/addons',
      );
    const base = input.return_url ?? `${this.deps.dashboardUrl()}${RETURN_PATHS[input.return_to ?? 'plan']}`;
    // With an API key nothing identifies a person: the customer is created without an email.
    const customer = await this.deps.accounts.customerFor(caller.team, null);
    return this.deps.provider.checkout(customer.customerId, caller.team.id, {
      kind: wantsPlan ? 'plan' : 'addon',
      code,
      quantity,
      successUrl: withQueryParam(base, 'checkout=success'),
      cancelUrl: withQueryParam(base, 'checkout=cancelled'),
    });
  }

  /** A team with no customer yet gets one: the portal then lets it add a payment method. */
  async portal(caller: Caller): Promise<PortalSession> {
    this.assertConfigured();
    const customer = await this.deps.accounts.customerFor(caller.team, null);
    return this.deps.provider.portal(customer.customerId, `${this.deps.dashboardUrl()}${PORTAL_RETURN_PATH}`);
  }

  /** The team's invoices, newest first, read from the provider at most once a minute per team. */
  async invoices(caller: Caller): Promise<InvoiceList> {
    this.assertConfigured();
    const teamId = caller.team.id;
    const cached = await this.deps.invoices.get(teamId);
    if (cached) return cached;
    const account = await this.deps.accounts.find(teamId);
    const list: InvoiceList = account
      ? await this.deps.provider.invoices(account.customerId)
      : { object: 'list', has_more: false, data: [] };
    await this.deps.invoices.set(teamId, list);
    return list;
  }

  /** Moves the subscription to another plan's price; the team's plan follows at once. */
  async changePlan(caller: Caller, planCode: string): Promise<void> {
    this.assertConfigured();
    this.sellablePlan(planCode);
    const account = await this.subscribed(caller.team.id, 'change its plan');
    if (account.planCode === planCode)
      throw new UnprocessableValidationError(
        `The subscription is already on the ${planCode} plan`,
        field('plan_code', 'is the current plan'),
      );
    await this.assertMayDropSso(caller, planCode);
    await this.apply(caller.team.id, await this.deps.provider.changePlan(account, planCode));
  }

  /** Adds an add-on to the subscription (or more of it: seats). */
  async addAddon(caller: Caller, input: AddonInput): Promise<void> {
    this.assertConfigured();
    const quantity = input.quantity ?? 1;
    const addon = this.sellableAddon(input.addon_code, quantity);
    const account = await this.subscribed(caller.team.id, 'add an add-on to');
    if (isHeld(account))
      throw new UnprocessableValidationError(
        'A payment of the subscription has failed: settle it in the billing portal (POST /billing/portal) before buying more',
      );
    if (!addon.byUnit && account.items.some((item) => item.kind === 'addon' && item.code === addon.code))
      throw new UnprocessableValidationError(
        `The subscription already has ${addon.code}`,
        field('addon_code', 'already on the subscription'),
      );
    await this.apply(caller.team.id, await this.deps.provider.addAddon(account, addon.code, quantity));
  }

  /** Turning single sign-on off by a plan change needs a signed-in owner or admin (the spec's rule). */
  private async assertMayDropSso(caller: Caller, planCode: string): Promise<void> {
    if (findPlan(planCode)?.sso || !(await this.deps.ssoConfigured?.(caller.team.id))) return;
    const signedInAdmin = caller.member?.role === 'owner' || caller.member?.role === 'admin';
    if (!signedInAdmin)
      throw new InvalidPermissionError(
        `The ${planCode} plan does not include single sign-on, which this team has configured: only an owner or admin signed in to the dashboard may make this change`,
      );
  }

  private async apply(teamId: string, snapshot: Awaited<ReturnType<BillingProvider['readSubscription']>>) {
    await this.deps.accounts.apply(teamId, snapshot);
    // Prorations make or change invoices.
    await this.deps.invoices.forget(teamId);
  }

  private async subscribed(teamId: string, what: string): Promise<BillingAccount> {
    const account = await this.deps.accounts.find(teamId);
    if (!account || !hasSubscription(account))
      throw needsCheckout(`The team has no subscription to ${what}: start one with POST /billing/checkout`);
    return account;
  }

  private sellablePlan(code: string): string {
    if (!findPlan(code))
      throw new UnprocessableValidationError(
        `Unknown plan ${code}; plans: ${PLANS.map((plan) => plan.code).join(', ')}`,
        field('plan_code', 'unknown plan'),
      );
    if (!this.deps.provider.sells(code))
      throw new UnprocessableValidationError(
        `The ${code} plan is not sold on this appliance (no price is configured for it)`,
        field('plan_code', 'not sold'),
      );
    return code;
  }

  /** The add-on, checked: known, quantity allowed, storage purchasable (503 before anything is charged), priced. */
  private sellableAddon(code: string, quantity: number): Addon {
    const addon = findAddon(code);
    if (!addon)
      throw new UnprocessableValidationError(
        `Unknown add-on ${code}; add-ons: ${ADDONS.map((a) => a.code).join(', ')}`,
        field('addon_code', 'unknown add-on'),
      );
    if (quantity > 1 && !addon.byUnit)
      throw new UnprocessableValidationError(
        `${code} is not sold by unit: quantity must be 1`,
        field('quantity', 'must be 1'),
      );
    if (addon.storage && storagePurchase(this.deps.provider, null) === 'unavailable')
      throw new ServiceUnavailableError(
        'Storage add-ons cannot be bought on this appliance now (storage_addon_purchase is unavailable)',
      );
    if (!this.deps.provider.sells(code))
      throw new UnprocessableValidationError(
        `The ${code} add-on is not sold on this appliance (no price is configured for it)`,
        field('addon_code', 'not sold'),
      );
    return addon;
  }

  private assertConfigured(): void {
    if (!this.deps.provider.configured) throw notConfiguredError();
  }
}
