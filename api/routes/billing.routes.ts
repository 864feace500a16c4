import { z } from 'zod';
import { listPlanOffers } from '../../core/platform/billing/plan-offers.js';
import { defineRoute } from '../route.js';
import { errorBodySchema } from '../schemas.js';
import {
  addonBodySchema,
  billingSchema,
  checkoutBodySchema,
  checkoutSessionSchema,
  invoiceListSchema,
  planChangeBodySchema,
  portalSessionSchema,
} from './billing.schemas.js';
import { auditEvent } from '../audit-events.js';

export { billingSchema };

const count = z.number().int().nonnegative();
const planOfferSchema = z
  .object({
    object: z.literal('plan'),
    code: z.string(),
    name: z.string(),
    monthly_price_cents: count.nullable().describe('the provider’s monthly price; null where the plan is not sold'),
    currency: z.string().nullable(),
    included_emails: count,
    daily_cap: count.nullable(),
    domain_limit: count,
    contact_limit: count,
    ai_credits_monthly: count,
    single_sign_on: z.boolean().describe('the plan includes single sign-on per team (OpenID Connect)'),
    purchasable: z.boolean().describe('checkout (or a plan change) to it goes through the payment provider'),
    current: z.boolean(),
  })
  .strict();
const planListSchema = z
  .object({ object: z.literal('list'), has_more: z.literal(false), data: z.array(planOfferSchema) })
  .strict();

/**
 * Billing (spec: "### Billing"). GET /billing always works; the paid routes go through the
 * payment provider (billing.provider) and answer 503 service_unavailable without one. Reads take
 * a full_access key or the billing:read scope; no OAuth scope reaches the paid routes.
 */
const tag = 'billing';
const paid = { tag, permission: 'full_access' as const, scope: null };
const refusals = {
  422: {
    description: 'Refused: see the rules of each route (validation_error, details.next checkout)',
    schema: errorBodySchema,
  },
  503: {
    description: 'No payment provider configured, or it could not be reached (service_unavailable)',
    schema: errorBodySchema,
  },
};

export const billingRoutes = [
  defineRoute({
    method: 'GET',
    path: '/billing',
    operationId: 'getBilling',
    summary: 'The plan, its usage this month, and the subscription and payment state at the payment provider',
    tag,
    permission: 'full_access',
    scope: 'billing:read',
    responses: { 200: { description: 'The billing object', schema: billingSchema } },
    handler: async ({ caller, services }) => ({ status: 200, body: await services.billing.get(caller.team) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/billing/plans',
    operationId: 'listBillingPlans',
    summary: 'The plans a team can be on, what each includes and, where the payment provider sells it, its price',
    tag,
    permission: 'full_access',
    scope: 'billing:read',
    responses: { 200: { description: 'Every plan, in the catalogue’s order', schema: planListSchema } },
    handler: async ({ caller, services }) => ({
      status: 200,
      body: {
        object: 'list',
        has_more: false,
        data: await listPlanOffers(services.billingProvider, caller.team.plan.code),
      },
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/billing/invoices',
    operationId: 'listBillingInvoices',
    summary: "The team's invoices, read from the payment provider (cached 60 seconds per team)",
    tag,
    permission: 'full_access',
    scope: 'billing:read',
    responses: {
      200: { description: 'Invoices, newest first (up to 100)', schema: invoiceListSchema },
      503: refusals[503],
    },
    handler: async ({ caller, services }) => ({ status: 200, body: await services.paidBilling.invoices(caller) }),
  }),
  defineRoute({
    ...paid,
    method: 'POST',
    path: '/billing/checkout',
    operationId: 'createBillingCheckout',
    summary: "A checkout session at the payment provider for a plan or an add-on (the team's first subscription)",
    body: checkoutBodySchema,
    exampleBody: { plan_code: 'pro', return_url: 'https://app.example.com/billing' },
    responses: { 200: { description: 'The checkout session', schema: checkoutSessionSchema }, ...refusals },
    audit: ({ body, caller }) =>
      auditEvent('billing.checkout_started', 'team', caller.team.id, {
        plan_code: body.plan_code ?? null,
        addon_code: body.addon_code ?? null,
      }),
    handler: async ({ body, caller, services }) => ({
      status: 200,
      body: await services.paidBilling.checkout(caller, body),
    }),
  }),
  defineRoute({
    ...paid,
    method: 'POST',
    path: '/billing/portal',
    operationId: 'createBillingPortalSession',
    summary: "A session of the payment provider's billing portal (payment method, invoices, cancellation)",
    responses: { 200: { description: 'The portal session', schema: portalSessionSchema }, 503: refusals[503] },
    audit: ({ caller }) => auditEvent('billing.portal_opened', 'team', caller.team.id),
    handler: async ({ caller, services }) => ({ status: 200, body: await services.paidBilling.portal(caller) }),
  }),
  defineRoute({
    ...paid,
    method: 'POST',
    path: '/billing/plan',
    operationId: 'changeBillingPlan',
    summary:
      "Moves the team's subscription to another paid plan (prorated by the provider); answers the billing object",
    body: planChangeBodySchema,
    exampleBody: { plan_code: 'scale' },
    responses: { 200: { description: 'The billing object after the change', schema: billingSchema }, ...refusals },
    audit: ({ body, caller }) =>
      auditEvent('billing.plan_changed', 'team', caller.team.id, {
        plan_code: body.plan_code,
        previous_plan_code: caller.team.plan.code,
      }),
    handler: async ({ body, caller, services }) => {
      await services.paidBilling.changePlan(caller, body.plan_code);
      return { status: 200, body: await services.billing.get(await services.teams.get(caller.team.id)) };
    },
  }),
  defineRoute({
    ...paid,
    method: 'POST',
    path: '/billing/addons',
    operationId: 'addBillingAddon',
    summary: "Adds an add-on to the team's subscription (or more seats); answers the billing object",
    body: addonBodySchema,
    exampleBody: { addon_code: 'inbox_seat', quantity: 2 },
    responses: { 200: { description: 'The billing object after the purchase', schema: billingSchema }, ...refusals },
    audit: ({ body, caller }) =>
      auditEvent('billing.addon_added', 'team', caller.team.id, {
        addon_code: body.addon_code,
        quantity: body.quantity ?? null,
      }),
    handler: async ({ body, caller, services }) => {
      await services.paidBilling.addAddon(caller, body);
      return { status: 200, body: await services.billing.get(await services.teams.get(caller.team.id)) };
    },
  }),
];
