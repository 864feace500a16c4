import { oauthConsentRoutes } from './oauth-consent.routes.js';
import { oauthGrantRoutes } from './oauth-grants.routes.js';
import { oauthMetadataRoutes } from './oauth-metadata.routes.js';
import { oauthProtocolRoutes } from './oauth-protocol.routes.js';
import { oauthRegisterRoutes } from './oauth-register.routes.js';

/** The OAuth authorization server's routes, its consent page included. */
export const oauthRoutes = [
  ...oauthRegisterRoutes,
  ...oauthProtocolRoutes,
  ...oauthConsentRoutes,
  ...oauthGrantRoutes,
  ...oauthMetadataRoutes,
];
