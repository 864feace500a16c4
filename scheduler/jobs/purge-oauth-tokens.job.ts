import type { Job } from '../job.js';

/** Expired OAuth codes and access tokens, old rotated refresh tokens, ended grants and deleted clients (see OAuthRetention). */
export const purgeOAuthTokensJob: Job = {
  name: 'purge-oauth-tokens',
  cron: '23 * * * *',
  timeoutMs: 5 * 60_000,
  run: async (services) => services.oauthRetention.purge(),
};
