import type { Job } from '../job.js';

/**
 * Dashboard sessions and account tokens are dead weight once ended (expired, revoked or used
 * up); a day's grace keeps them for an operator looking into a fresh incident. Invitations are
 * kept 90 days (the team's list shows the last 30).
 */
export const purgeAccountSessionsJob: Job = {
  name: 'purge-account-sessions',
  description: 'delete ended dashboard sessions and account tokens, and invitations after 90 days (hourly)',
  cron: '17 * * * *',
  timeoutMs: 5 * 60_000,
  run: async (services) => ({
    sessions: await services.userSessions.purgeEnded(),
    account_tokens: await services.accountRecovery.purgeExpired(),
    invitations: await services.invitations.purgeExpired(),
  }),
};
