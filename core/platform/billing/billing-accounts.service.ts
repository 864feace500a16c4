import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';
import type { Team } from '../teams/team.types.js';
import { BillingAccountRepository } from './billing-account.repository.js';
import { grantedPlan, hasSubscription, type BillingAccount } from './billing-account.types.js';
import type { BillingProvider, SubscriptionSnapshot } from './billing-provider.js';

export type Transact = <T>(work: (trx: Knex.Transaction) => Promise<T>) => Promise<T>;

export type BillingAccountsDeps = {
  knex: Knex;
  clock: Clock;
  provider: BillingProvider;
  transact: Transact;
  /** Sets the team's plan in the caller's transaction (the teams group's setPlan). */
  setTeamPlan: (trx: Knex, teamId: string, planCode: string) => Promise<void>;
};

/**
 * Each team's customer and subscription state at the payment provider, and the one way that
 * state changes: a subscription read from the provider, applied in one transaction with the
 * team's plan (and, for a webhook, the event's id; see BillingWebhookService).
 */
export class BillingAccounts {
  readonly repository: BillingAccountRepository;

  constructor(private readonly deps: BillingAccountsDeps) {
    this.repository = new BillingAccountRepository(deps.knex);
  }

  find(teamId: string): Promise<BillingAccount | undefined> {
    return this.repository.find(teamId);
  }

  /**
   * The team's customer, created at the provider on first need. The id is stored only once the
   * provider answered (a provider that cannot be reached leaves nothing behind); two first uses
   * at once get the same customer (the provider's idempotency key is per team) and one row.
   */
  async customerFor(team: Team, email: string | null): Promise<BillingAccount> {
    const existing = await this.repository.find(team.id);
    if (existing) return existing;
    const customerId = await this.deps.provider.createCustomer({ teamId: team.id, name: team.name, email });
    return this.repository.insertCustomer(team.id, this.deps.provider.name, customerId, this.deps.clock.now());
  }

  /** Applies a subscription read just now from the provider (plan change, add-on). */
  async apply(teamId: string, snapshot: SubscriptionSnapshot): Promise<void> {
    await this.deps.transact(async (trx) => {
      await this.applyWithin(trx, teamId, await this.repository.find(teamId, trx), snapshot);
    });
  }

  /**
   * Writes the subscription's state and moves the team's plan, in `trx`. The plan follows the
   * subscription while it grants one (active, trialing, past_due); when the subscription stops
   * granting the plan it granted, the team goes back to `free`. A subscription of add-ons only
   * leaves the plan alone (the operator may have set it). A state read of an older subscription
   * (a late event about one that ended) never replaces a live one.
   */
  async applyWithin(
    trx: Knex,
    teamId: string,
    existing: BillingAccount | undefined,
    snapshot: SubscriptionSnapshot,
  ): Promise<'applied' | 'ignored'> {
    const { state } = snapshot;
    const other = existing?.subscriptionId && existing.subscriptionId !== state.subscriptionId;
    if (other && hasSubscription(existing) && !hasSubscription(state)) return 'ignored';
    await this.repository.writeState(
      trx,
      {
        teamId,
        provider: this.deps.provider.name,
        customerId: snapshot.customerId,
        exists: existing !== undefined,
      },
      state,
      this.deps.clock.now(),
    );
    const before = grantedPlan(existing);
    const after = grantedPlan(state);
    if (after !== null) await this.deps.setTeamPlan(trx, teamId, after);
    else if (before !== null) await this.deps.setTeamPlan(trx, teamId, 'free');
    return 'applied';
  }
}
