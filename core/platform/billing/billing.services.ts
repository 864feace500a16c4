import type { Knex } from 'knex';
import type { AuditRecorder } from '../audit/audit-log.service.js';
import type { Clock } from '../../../lib/clock.js';
import type { Config } from '../../../lib/config/config.schema.js';
import type { KeyValueStore } from '../../../lib/kv/kv.js';
import type { Logger } from '../../../lib/logger.js';
import { BillingAccounts, type Transact } from './billing-accounts.service.js';
import { NoBillingProvider, type BillingProvider } from './billing-provider.js';
import { BillingWebhookEventRepository } from './billing-webhook-event.repository.js';
import { BillingWebhookService } from './billing-webhook.service.js';
import { BillingService } from './billing.service.js';
import type { CountEmails } from './billing.types.js';
import { InvoiceCache } from './invoice-cache.js';
import { MeterReportRepository } from './meter-report.repository.js';
import { OverageMeterService, type UsageTotal } from './overage-meter.service.js';
import { PaidBillingService } from './paid-billing.service.js';
import { StripeBillingProvider } from './stripe/stripe.provider.js';

export type BillingInfrastructure = {
  knex: Knex;
  kv: KeyValueStore;
  clock: Clock;
  config: Config;
  logger: Logger;
  dashboardUrl: () => string;
  transact: Transact;
  countEmails: CountEmails;
  memberCount: (teamId: string) => Promise<number>;
  /** The teams group: the plan set in the transaction that records the provider's state. */
  setTeamPlan: (trx: Knex, teamId: string, planCode: string) => Promise<void>;
  teamExists: (db: Knex, teamId: string) => Promise<boolean>;
  /** Whether the team has single sign-on set up (a plan change that drops it needs a signed-in admin). */
  ssoConfigured?: (teamId: string) => Promise<boolean>;
  /** The usage ledger's total of one category (the overage meter's source). */
  usageTotal: UsageTotal;
  /** The audit log, for what the payment provider changed. */
  audit: AuditRecorder;
};

/** The configured payment provider (billing.provider): one adapter per provider. */
export function createBillingProvider(
  infra: Pick<BillingInfrastructure, 'config' | 'clock' | 'logger'>,
): BillingProvider {
  const { billing } = infra.config;
  switch (billing.provider) {
    case 'stripe':
      return new StripeBillingProvider(billing.stripe, { clock: infra.clock, logger: infra.logger });
    case 'none':
      return new NoBillingProvider();
  }
}

/** The billing group: GET /billing, the paid routes, the provider's webhooks and the overage meter. */
export function createBillingServices(infra: BillingInfrastructure) {
  const { knex, clock, logger } = infra;
  const provider = createBillingProvider(infra);
  const accounts = new BillingAccounts({
    knex,
    clock,
    provider,
    transact: infra.transact,
    setTeamPlan: infra.setTeamPlan,
  });
  const invoices = new InvoiceCache({ kv: infra.kv, clock });
  return {
    billingProvider: provider,
    billingAccounts: accounts,
    billing: new BillingService({
      clock,
      countEmails: infra.countEmails,
      memberCount: infra.memberCount,
      provider,
      findAccount: (teamId) => accounts.find(teamId),
    }),
    paidBilling: new PaidBillingService({
      ...{ provider, accounts, invoices, dashboardUrl: infra.dashboardUrl },
      ssoConfigured: infra.ssoConfigured,
    }),
    billingWebhooks: new BillingWebhookService({
      clock,
      logger,
      provider,
      accounts,
      events: new BillingWebhookEventRepository(knex),
      invoices,
      transact: infra.transact,
      teamExists: infra.teamExists,
      audit: infra.audit,
    }),
    overageMeter: new OverageMeterService({
      clock,
      logger,
      provider,
      accounts: accounts.repository,
      reports: new MeterReportRepository(knex),
      usage: infra.usageTotal,
    }),
  };
}

export type BillingServices = ReturnType<typeof createBillingServices>;
