import { invitationRoutes } from './invitations.routes.js';
import { mfaRoutes } from './mfa.routes.js';
import { recoveryRoutes } from './recovery.routes.js';
import { sessionRoutes } from './session.routes.js';
import { sessionTeamRoutes } from './teams.routes.js';

/** The dashboard's cookie-session routes (spec: "Dashboard session routes"). */
export const authRoutes = [
  ...sessionRoutes,
  ...sessionTeamRoutes,
  ...recoveryRoutes,
  ...mfaRoutes,
  ...invitationRoutes,
];
