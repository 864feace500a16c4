import type { Knex } from 'knex';
import type { Clock } from '../../lib/clock.js';
import type { KeyValueStore } from '../../lib/kv/kv.js';
import { OAuthAuthorizationService } from './oauth-authorization.service.js';
import { OAuthConsentService } from './oauth-consent.service.js';
import { OAuthClientService, type RegistrationLimits } from './oauth-client.service.js';
import { OAuthGrantService } from './oauth-grant.service.js';
import { OAuthMetadata } from './oauth-metadata.js';
import { OAuthRetention } from './oauth-retention.js';
import { OAuthTokenService } from './oauth-token.service.js';
import { ResourceIndicators } from './resource-indicators.js';

/** The OAuth authorization server: clients, authorization requests, codes and tokens, grants. */
export function createOAuthServices(infra: {
  knex: Knex;
  clock: Clock;
  kv: KeyValueStore;
  publicUrl: () => string;
  limits: RegistrationLimits;
}) {
  const { knex, clock } = infra;
  const resources = new ResourceIndicators(infra.publicUrl);
  const authorization = new OAuthAuthorizationService({ knex, kv: infra.kv, resources });
  const tokens = new OAuthTokenService({ knex, clock, resources });
  return {
    oauthClients: new OAuthClientService({ knex, clock, limits: infra.limits }),
    oauthAuthorization: authorization,
    oauthConsent: new OAuthConsentService({ authorization, tokens }),
    oauthTokens: tokens,
    oauthGrants: new OAuthGrantService({ knex, clock }),
    oauthMetadata: new OAuthMetadata(infra.publicUrl, resources),
    oauthRetention: new OAuthRetention({ knex, clock }),
  };
}

export type OAuthServices = ReturnType<typeof createOAuthServices>;
