import type { Job } from '../job.js';

/**
 * Moves domain claims along: expires those out of time, looks for the TXT record of those asked
 * to verify (with back-off), re-evaluates blocked ones, transfers names nothing protects.
 */
export const checkDomainClaimsJob: Job = {
  name: 'check-domain-claims',
  description: 'move domain claims along: expire, look for their TXT record, transfer unprotected names (every minute)',
  cron: '* * * * *',
  timeoutMs: 5 * 60_000,
  run: async (services) => services.domainClaimChecks.runDueChecks(),
};
