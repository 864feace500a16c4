import type { Job } from '../job.js';

/** Audit log entries are kept for the plan's audit_retention_days, then deleted. */
export const purgeAuditLogJob: Job = {
  name: 'purge-audit-log',
  description: "delete audit log entries past the plan's audit retention (daily)",
  cron: '41 3 * * *',
  timeoutMs: 30 * 60_000,
  run: async (services) => ({ deleted: await services.audit.purgeExpired() }),
};
