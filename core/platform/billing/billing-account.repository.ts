import type { Knex } from 'knex';
import { readBoolean, readJson, readNullableTimestamp, readTimestamp, writeJson } from '../../../db/dialect.js';
import type {
  BillingAccount,
  PaymentFailure,
  SubscriptionItemState,
  SubscriptionState,
} from './billing-account.types.js';

type Row = {
  team_id: string;
  provider: string;
  customer_id: string;
  subscription_id: string | null;
  status: string | null;
  plan_code: string | null;
  items: string | null;
  current_period_start: unknown;
  current_period_end: unknown;
  cancel_at: unknown;
  trial_ends_at: unknown;
  collection_method: string | null;
  latest_invoice_id: string | null;
  latest_invoice_status: string | null;
  payment_failure: string | null;
  payment_method_brand: string | null;
  payment_method_last4: string | null;
  payment_method_present: unknown;
  created_at: unknown;
  updated_at: unknown;
};

function toAccount(row: Row): BillingAccount {
  return {
    teamId: row.team_id,
    provider: row.provider,
    customerId: row.customer_id,
    subscriptionId: row.subscription_id,
    status: row.status,
    planCode: row.plan_code,
    items: readJson<SubscriptionItemState[]>(row.items, []),
    currentPeriodStart: readNullableTimestamp(row.current_period_start),
    currentPeriodEnd: readNullableTimestamp(row.current_period_end),
    cancelAt: readNullableTimestamp(row.cancel_at),
    trialEndsAt: readNullableTimestamp(row.trial_ends_at),
    collectionMethod: row.collection_method,
    latestInvoiceId: row.latest_invoice_id,
    latestInvoiceStatus: row.latest_invoice_status,
    paymentFailure: readJson<PaymentFailure | null>(row.payment_failure, null),
    paymentMethod: {
      present: readBoolean(row.payment_method_present),
      brand: row.payment_method_brand,
      last4: row.payment_method_last4,
    },
    createdAt: readTimestamp(row.created_at),
    updatedAt: readTimestamp(row.updated_at),
  };
}

function stateColumns(state: SubscriptionState): Record<string, unknown> {
  return {
    subscription_id: state.subscriptionId,
    status: state.status,
    plan_code: state.planCode,
    items: writeJson(state.items),
    current_period_start: state.currentPeriodStart,
    current_period_end: state.currentPeriodEnd,
    cancel_at: state.cancelAt,
    trial_ends_at: state.trialEndsAt,
    collection_method: state.collectionMethod,
    latest_invoice_id: state.latestInvoiceId,
    latest_invoice_status: state.latestInvoiceStatus,
    payment_failure: writeJson(state.paymentFailure),
    payment_method_brand: state.paymentMethod.brand,
    payment_method_last4: state.paymentMethod.last4,
    payment_method_present: state.paymentMethod.present,
  };
}

/** billing_accounts: one row per team that has a customer at the payment provider. */
export class BillingAccountRepository {
  constructor(private readonly knex: Knex) {}

  async find(teamId: string, db: Knex = this.knex): Promise<BillingAccount | undefined> {
    const row = (await db('billing_accounts').where({ team_id: teamId }).first()) as Row | undefined;
    return row ? toAccount(row) : undefined;
  }

  async findByCustomer(
    provider: string,
    customerId: string,
    db: Knex = this.knex,
  ): Promise<BillingAccount | undefined> {
    const row = (await db('billing_accounts').where({ provider, customer_id: customerId }).first()) as Row | undefined;
    return row ? toAccount(row) : undefined;
  }

  /** Stores a customer the provider created; a row already there (a concurrent first use) wins. */
  async insertCustomer(teamId: string, provider: string, customerId: string, now: Date): Promise<BillingAccount> {
    await this.knex('billing_accounts')
      .insert({
        team_id: teamId,
        provider,
        customer_id: customerId,
        payment_method_present: false,
        created_at: now,
        updated_at: now,
      })
      .onConflict('team_id')
      .ignore();
    return (await this.find(teamId))!;
  }

  /** Writes the subscription's state read from the provider (in the caller's transaction). */
  async writeState(
    db: Knex,
    account: { teamId: string; provider: string; customerId: string; exists: boolean },
    state: SubscriptionState,
    now: Date,
  ): Promise<void> {
    if (account.exists) {
      await db('billing_accounts')
        .where({ team_id: account.teamId })
        .update({ ...stateColumns(state), customer_id: account.customerId, updated_at: now });
      return;
    }
    await db('billing_accounts').insert({
      team_id: account.teamId,
      provider: account.provider,
      customer_id: account.customerId,
      ...stateColumns(state),
      created_at: now,
      updated_at: now,
    });
  }

  /** Teams whose live subscription pays for a plan (the overage meter's candidates). */
  async withPlanSubscriptions(provider: string): Promise<BillingAccount[]> {
    const rows = (await this.knex('billing_accounts')
      .where({ provider })
      .whereNotNull('subscription_id')
      .whereNotNull('plan_code')
      .whereIn('status', ['active', 'trialing', 'past_due'])
      .orderBy('team_id')) as Row[];
    return rows.map(toAccount);
  }
}
