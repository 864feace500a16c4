import type { Job } from '../job.js';

/** Re-checks domains whose next check is due: pending ones with back-off, verified ones daily. */
export const verifyDomainsJob: Job = {
  name: 'verify-domains',
  description:
    'check the DNS records of domains whose next check is due: pending ones with back-off, verified ones daily (every minute)',
  cron: '* * * * *',
  timeoutMs: 5 * 60_000,
  run: async (services) => services.domainVerification.runDueChecks(),
};
