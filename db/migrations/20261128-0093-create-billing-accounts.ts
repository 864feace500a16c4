import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * A team's account at the payment provider (billing.provider), one row per team: its customer
 * id (stored once the provider created it, so a failed call leaves no id pointing nowhere), and
 * the last state read of its subscription, which GET /billing reports and which sets the team's
 * plan. Written by the webhook handler and the plan and add-on routes, always from a fresh read
 * of the subscription at the provider, never from an event's snapshot.
 */
export const createBillingAccounts: Migration = {
  name: '20261128-0093-create-billing-accounts',
  ...createTable('billing_accounts', (table) => {
    uuid(table, 'team_id').primary().references('id').inTable('teams').onDelete('CASCADE');
    /** The provider that holds the customer (`stripe`). */
    table.string('provider', 16).notNullable();
    table.string('customer_id', 191).notNullable();
    table.string('subscription_id', 191).nullable();
    /** The provider's subscription status (`active`, `past_due`, `canceled`...); null: never subscribed. */
    table.string('status', 32).nullable();
    /** The plan the subscription pays for; null for a subscription of add-ons only. */
    table.string('plan_code', 32).nullable();
    /** JSON: the subscription's items [{ id, price, kind, code, quantity }]. */
    table.text('items').nullable();
    timestamp(table, 'current_period_start').nullable();
    timestamp(table, 'current_period_end').nullable();
    /** When the subscription is set to end (cancel at period end, or a cancel date). */
    timestamp(table, 'cancel_at').nullable();
    timestamp(table, 'trial_ends_at').nullable();
    table.string('collection_method', 32).nullable();
    table.string('latest_invoice_id', 255).nullable();
    table.string('latest_invoice_status', 32).nullable();
    /** JSON: the latest invoice's failed payment, while it is unpaid; null when fine. */
    table.text('payment_failure').nullable();
    table.string('payment_method_brand', 32).nullable();
    table.string('payment_method_last4', 4).nullable();
    table.boolean('payment_method_present').notNullable().defaultTo(false);
    timestamp(table, 'created_at').notNullable();
    timestamp(table, 'updated_at').notNullable();
    table.unique(['provider', 'customer_id'], { indexName: 'billing_accounts_customer' });
    table.index(['subscription_id'], 'billing_accounts_subscription');
  }),
};
