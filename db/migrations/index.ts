import type { Migration } from './migration.js';
import { createTeams } from './20261122-0001-create-teams.js';
import { createTeamMembers } from './20261122-0002-create-team-members.js';
import { createApiKeys } from './20261122-0003-create-api-keys.js';
import { createRequestLogs } from './20261122-0004-create-request-logs.js';
import { createIdempotencyKeys } from './20261122-0005-create-idempotency-keys.js';
import { createBrandAssets } from './20261122-0006-create-brand-assets.js';
import { createJobLeases } from './20261122-0007-create-job-leases.js';
import { createEvents } from './20261122-0008-create-events.js';
import { createDomains } from './20261122-0009-create-domains.js';
import { createSuppressions } from './20261122-0010-create-suppressions.js';
import { createDkimKeys } from './20261122-0011-create-dkim-keys.js';
import { createTemplates } from './20261122-0012-create-templates.js';
import { createTemplateVersions } from './20261122-0013-create-template-versions.js';
import { createEmails } from './20261122-0014-create-emails.js';
import { createEmailAttachments } from './20261122-0015-create-email-attachments.js';
import { addEmailHeaders } from './20261123-0016-add-email-headers.js';
import { createDeliveries } from './20261123-0017-create-deliveries.js';
import { createDeliveryAttempts } from './20261123-0018-create-delivery-attempts.js';
import { createEgressBlocks } from './20261123-0019-create-egress-blocks.js';
import { createWebhookEndpoints } from './20261123-0030-create-webhook-endpoints.js';
import { createWebhookDeliveries } from './20261123-0031-create-webhook-deliveries.js';
import { createWebhookAttempts } from './20261123-0032-create-webhook-attempts.js';
import { createMetricBuckets } from './20261123-0040-create-metric-buckets.js';
import { createMetricFirstSeen } from './20261123-0041-create-metric-first-seen.js';
import { createMetricRollupState } from './20261123-0042-create-metric-rollup-state.js';
import { widenTemplateVariables } from './20261123-0043-widen-template-variables.js';
import { createProcessLeases } from './20261125-0044-create-process-leases.js';
import { addIdempotencyOwner } from './20261125-0045-add-idempotency-owner.js';
import { createReceivedEmails } from './20261125-0046-create-received-emails.js';
import { createContacts } from './20261126-0047-create-contacts.js';
import { createContactProperties } from './20261126-0048-create-contact-properties.js';
import { createContactPropertyValues } from './20261126-0049-create-contact-property-values.js';
import { createTopics } from './20261126-0050-create-topics.js';
import { createContactTopics } from './20261126-0051-create-contact-topics.js';
import { createSegments } from './20261126-0052-create-segments.js';
import { createSegmentMembers } from './20261126-0053-create-segment-members.js';
import { createConsentRecords } from './20261126-0054-create-consent-records.js';
import { createContactImports } from './20261126-0055-create-contact-imports.js';
import { createBroadcasts } from './20261126-0056-create-broadcasts.js';
import { createBroadcastRecipients } from './20261126-0057-create-broadcast-recipients.js';
import { addEmailBroadcast } from './20261126-0058-add-email-broadcast.js';
import { createPlatformSettings } from './20261126-0059-create-platform-settings.js';
import { addBroadcastRecipientEngagement } from './20261126-0060-add-broadcast-recipient-engagement.js';
import { createBroadcastLinks } from './20261126-0061-create-broadcast-links.js';
import { createBroadcastLinkClicks } from './20261126-0062-create-broadcast-link-clicks.js';
import { createCustomEventDefinitions } from './20261126-0063-create-custom-event-definitions.js';
import { createCustomEventOccurrences } from './20261126-0064-create-custom-event-occurrences.js';
import { addEmailsHandOverIndex } from './20261126-0065-add-emails-hand-over-index.js';
import { createAutomations } from './20261126-0066-create-automations.js';
import { createAutomationVersions } from './20261126-0067-create-automation-versions.js';
import { createAutomationRuns } from './20261126-0068-create-automation-runs.js';
import { createAutomationRunSteps } from './20261126-0069-create-automation-run-steps.js';
import { addAutomationVersionTrigger } from './20261126-0070-add-automation-version-trigger.js';
import { addAutomationRunAttempts } from './20261126-0071-add-automation-run-attempts.js';
import { createAutomationSegmentEntries } from './20261126-0072-create-automation-segment-entries.js';
import { createAutomationSegmentWatches } from './20261126-0073-create-automation-segment-watches.js';
import { addAutomationRunStepsEmailIndex } from './20261126-0074-add-automation-run-steps-email-index.js';
import { createUsers } from './20261126-0075-create-users.js';
import { createUserSessions } from './20261126-0076-create-user-sessions.js';
import { createAccountTokens } from './20261126-0077-create-account-tokens.js';
import { addTeamMembersUserId } from './20261126-0078-add-team-members-user-id.js';
import { createUserMfa } from './20261126-0079-create-user-mfa.js';
import { createOAuthClients } from './20261126-0080-create-oauth-clients.js';
import { createOAuthGrants } from './20261126-0081-create-oauth-grants.js';
import { createOAuthCodes } from './20261126-0082-create-oauth-codes.js';
import { createOAuthTokens } from './20261126-0083-create-oauth-tokens.js';
import { createTeamInvitations } from './20261126-0084-create-team-invitations.js';
import { createDomainClaims } from './20261126-0085-create-domain-claims.js';
import { addDomainsManaged } from './20261126-0086-add-domains-managed.js';
import { createEmailShareLinks } from './20261126-0087-create-email-share-links.js';
import { addOAuthGrantsResource } from './20261126-0088-add-oauth-grants-resource.js';
import { addEventsEmailId } from './20261127-0089-add-events-email-id.js';
import { addWebhookDeliveriesEventIndex } from './20261127-0090-add-webhook-deliveries-event-index.js';
import { addEmailsListFilterIndexes } from './20261127-0091-add-emails-list-filter-indexes.js';
import { createUsageRecords } from './20261128-0092-create-usage-records.js';
import { createBillingAccounts } from './20261128-0093-create-billing-accounts.js';
import { createBillingWebhookEvents } from './20261128-0094-create-billing-webhook-events.js';
import { createBillingMeterReports } from './20261128-0095-create-billing-meter-reports.js';
import { createAiDiagnoses } from './20261128-0100-create-ai-diagnoses.js';
import { backfillUsageRecords } from './20261128-0105-backfill-usage-records.js';
import { addAutomationRunsTeamCreatedIndex } from './20261128-0106-add-automation-runs-team-created-index.js';
import { addUsersOperator } from './20261128-0110-add-users-operator.js';
import { createDestinationHolds } from './20261128-0115-create-destination-holds.js';
import { addContactImportsResumedAt } from './20261128-0120-add-contact-imports-resumed-at.js';
import { addEventOccurrencesContactIndex } from './20261128-0130-add-event-occurrences-contact-index.js';
import { addPropertyValuesFolded } from './20261128-0300-add-property-values-folded.js';
import { backfillPropertyValuesFolded } from './20261128-0301-backfill-property-values-folded.js';
import { indexPropertyValuesForSegments } from './20261128-0302-index-property-values-for-segments.js';
import { createInboxes } from './20261129-0304-create-inboxes.js';
import { createSpoolCopies } from './20261129-0305-create-spool-copies.js';
import { addJobLeaseLastTick } from './20261129-0306-add-job-lease-last-tick.js';
import { createSsoConfigurations } from './20261129-0310-create-sso-configurations.js';
import { createSsoDomains } from './20261129-0311-create-sso-domains.js';
import { createSsoFlows } from './20261129-0312-create-sso-flows.js';
import { createSsoSignIns } from './20261129-0313-create-sso-sign-ins.js';
import { createAuditLogEntries } from './20261129-0320-create-audit-log-entries.js';
import { addUserSessionsViaSso } from './20261129-0330-add-user-sessions-via-sso.js';
import { indexReceivedRawBlob } from './20261129-0303-index-received-raw-blob.js';
import { createDmarcReports } from './20261128-0220-create-dmarc-reports.js';
import { createDeliverabilityActions } from './20261128-0200-create-deliverability-actions.js';
import { createIpWarmups } from './20261128-0201-create-ip-warmups.js';
import { createTlsResults } from './20261128-0210-create-tls-results.js';
import { createTlsReportsSent } from './20261128-0211-create-tls-reports-sent.js';

/** Every migration, in order. Imported, not globbed, so the compiled and tsx runs agree. */
export const migrations: Migration[] = [
  createTeams,
  createTeamMembers,
  createApiKeys,
  createRequestLogs,
  createIdempotencyKeys,
  createBrandAssets,
  createJobLeases,
  createEvents,
  createDomains,
  createSuppressions,
  createDkimKeys,
  createTemplates,
  createTemplateVersions,
  createEmails,
  createEmailAttachments,
  addEmailHeaders,
  createDeliveries,
  createDeliveryAttempts,
  createEgressBlocks,
  createWebhookEndpoints,
  createWebhookDeliveries,
  createWebhookAttempts,
  createMetricBuckets,
  createMetricFirstSeen,
  createMetricRollupState,
  widenTemplateVariables,
  createProcessLeases,
  addIdempotencyOwner,
  createReceivedEmails,
  createContacts,
  createContactProperties,
  createContactPropertyValues,
  createTopics,
  createContactTopics,
  createSegments,
  createSegmentMembers,
  createConsentRecords,
  createContactImports,
  createBroadcasts,
  createBroadcastRecipients,
  addEmailBroadcast,
  createPlatformSettings,
  addBroadcastRecipientEngagement,
  createBroadcastLinks,
  createBroadcastLinkClicks,
  createCustomEventDefinitions,
  createCustomEventOccurrences,
  addEmailsHandOverIndex,
  createAutomations,
  createAutomationVersions,
  createAutomationRuns,
  createAutomationRunSteps,
  addAutomationVersionTrigger,
  addAutomationRunAttempts,
  createAutomationSegmentEntries,
  createAutomationSegmentWatches,
  addAutomationRunStepsEmailIndex,
  createUsers,
  createUserSessions,
  createAccountTokens,
  addTeamMembersUserId,
  createUserMfa,
  createOAuthClients,
  createOAuthGrants,
  createOAuthCodes,
  createOAuthTokens,
  createTeamInvitations,
  createDomainClaims,
  addDomainsManaged,
  createEmailShareLinks,
  addOAuthGrantsResource,
  addEventsEmailId,
  addWebhookDeliveriesEventIndex,
  addEmailsListFilterIndexes,
  createUsageRecords,
  createBillingAccounts,
  createBillingWebhookEvents,
  createBillingMeterReports,
  createAiDiagnoses,
  backfillUsageRecords,
  addAutomationRunsTeamCreatedIndex,
  addUsersOperator,
  createDestinationHolds,
  addContactImportsResumedAt,
  addEventOccurrencesContactIndex,
  createDeliverabilityActions,
  createIpWarmups,
  createTlsResults,
  createTlsReportsSent,
  createDmarcReports,
  addPropertyValuesFolded,
  backfillPropertyValuesFolded,
  indexPropertyValuesForSegments,
  indexReceivedRawBlob,
  createInboxes,
  createSpoolCopies,
  addJobLeaseLastTick,
  createSsoConfigurations,
  createSsoDomains,
  createSsoFlows,
  createSsoSignIns,
  createAuditLogEntries,
  addUserSessionsViaSso,
];
