import { ssoAuthRoutes } from './sso-auth.routes.js';
import { teamSsoRoutes } from './team-sso.routes.js';

/** Per-team OpenID Connect single sign-on: the team's settings and the sign-in round trip. */
export const ssoRoutes = [...teamSsoRoutes, ...ssoAuthRoutes];
