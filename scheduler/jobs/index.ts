import type { Job } from '../job.js';
import { advanceAutomationsJob } from './advance-automations.job.js';
import { checkDomainClaimsJob } from './check-domain-claims.job.js';
import { dispatchScheduledJob } from './dispatch-scheduled.job.js';
import { fanOutBroadcastsJob } from './fan-out-broadcasts.job.js';
import { foldPropertyValuesJob } from './fold-property-values.job.js';
import { purgeAccountSessionsJob } from './purge-account-sessions.job.js';
import { purgeSsoRecordsJob } from './purge-sso-records.job.js';
import { purgeEmailShareLinksJob } from './purge-email-share-links.job.js';
import { purgeInboxesJob } from './purge-inboxes.job.js';
import { purgeBillingRecordsJob } from './purge-billing-records.job.js';
import { purgeUsageRecordsJob } from './purge-usage-records.job.js';
import { purgeTlsReportsJob } from './purge-tls-reports.job.js';
import { sendTlsReportsJob } from './send-tls-reports.job.js';
import { reportBillingOverageJob } from './report-billing-overage.job.js';
import { purgeAuditLogJob } from './purge-audit-log.job.js';
import { purgeAiDiagnosesJob } from './purge-ai-diagnoses.job.js';
import { purgeDmarcReportsJob } from './purge-dmarc-reports.job.js';
import { purgeConsentRecordsJob } from './purge-consent-records.job.js';
import { purgeContactImportFilesJob } from './purge-contact-import-files.job.js';
import { purgeDeliveriesJob } from './purge-deliveries.job.js';
import { purgeDeliverabilityActionsJob } from './purge-deliverability-actions.job.js';
import { purgeEmailsJob } from './purge-emails.job.js';
import { purgeEventsJob } from './purge-events.job.js';
import { purgeIdempotencyKeysJob } from './purge-idempotency-keys.job.js';
import { purgeMetricsJob } from './purge-metrics.job.js';
import { purgeOAuthTokensJob } from './purge-oauth-tokens.job.js';
import { purgeReceivedEmailsJob } from './purge-received-emails.job.js';
import { purgeRequestLogsJob } from './purge-request-logs.job.js';
import { purgeWebhookDeliveriesJob } from './purge-webhook-deliveries.job.js';
import { rollupMetricsJob } from './rollup-metrics.job.js';
import { verifyDomainsJob } from './verify-domains.job.js';
import { watchSegmentEntriesJob } from './watch-segment-entries.job.js';

/** The one list of scheduled jobs. */
export const jobs: Job[] = [
  dispatchScheduledJob,
  fanOutBroadcastsJob,
  advanceAutomationsJob,
  watchSegmentEntriesJob,
  foldPropertyValuesJob,
  purgeRequestLogsJob,
  purgeIdempotencyKeysJob,
  purgeEventsJob,
  purgeEmailsJob,
  purgeReceivedEmailsJob,
  purgeDeliveriesJob,
  verifyDomainsJob,
  checkDomainClaimsJob,
  purgeEmailShareLinksJob,
  purgeInboxesJob,
  purgeAiDiagnosesJob,
  purgeDmarcReportsJob,
  rollupMetricsJob,
  purgeMetricsJob,
  purgeWebhookDeliveriesJob,
  purgeConsentRecordsJob,
  purgeContactImportFilesJob,
  purgeAccountSessionsJob,
  purgeSsoRecordsJob,
  purgeOAuthTokensJob,
  reportBillingOverageJob,
  purgeBillingRecordsJob,
  purgeUsageRecordsJob,
  sendTlsReportsJob,
  purgeTlsReportsJob,
  purgeDeliverabilityActionsJob,
  purgeAuditLogJob,
];
