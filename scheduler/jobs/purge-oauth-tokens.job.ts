import type { Job } from '../job.js';

/** Expired OAuth codes and access tokens, old rotated refresh tokens, ended grants and deleted clients (see OAuthRetention). */
export const purgeOAuthTokensJob: Job = {
  name: 'purge-oauth-tokens',
  description: 'delete expired OAuth codes and tokens, old refresh tokens, ended grants and deleted clients (hourly)',
  cron: '23 * * * *',
  timeoutMs: 5 * 60_000,
  run: async (services) => services.oauthRetention.purge(),
};
