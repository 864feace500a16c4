import type { Job } from '../job.js';

/** Abandoned single sign-on round trips (past their 10 minutes), and sign-in records after 90 days. */
export const purgeSsoRecordsJob: Job = {
  name: 'purge-sso-records',
  description: 'delete expired single sign-on round trips, and sign-in records after 90 days (hourly)',
  cron: '29 * * * *',
  timeoutMs: 5 * 60_000,
  run: async (services) => ({
    flows: await services.ssoFlows.purgeExpired(),
    sign_ins: await services.sso.purgeSignIns(),
  }),
};
