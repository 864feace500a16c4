import { oauthGrantRoutes } from './oauth-grants.routes.js';
import { oauthMetadataRoutes } from './oauth-metadata.routes.js';
import { oauthProtocolRoutes } from './oauth-protocol.routes.js';
import { oauthRegisterRoutes } from './oauth-register.routes.js';

/** The OAuth authorization server's routes (the consent page comes with dashboard sessions). */
export const oauthRoutes = [
  ...oauthRegisterRoutes,
  ...oauthProtocolRoutes,
  ...oauthGrantRoutes,
  ...oauthMetadataRoutes,
];
