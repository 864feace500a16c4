import { adminAuditLogRoutes } from './audit-logs.routes.js';
import { adminDestinationHoldRoutes } from './destination-holds.routes.js';
import { adminIpWarmupRoutes } from './ip-warmup.routes.js';
import { adminLogRoutes } from './logs.routes.js';
import { adminPlatformRoutes } from './platform.routes.js';
import { adminQueueRoutes } from './queue.routes.js';
import { adminShapingRoutes } from './shaping.routes.js';
import { adminSystemRoutes } from './system.routes.js';
import { adminTeamRoutes } from './teams.routes.js';

/**
 * The admin API (operator console): every route permission 'operator' (an operator's session
 * with MFA on, nothing else), tag 'admin'. See docs/operating/console.md.
 */
export const adminRoutes = [
  ...adminQueueRoutes,
  ...adminDestinationHoldRoutes,
  ...adminLogRoutes,
  ...adminTeamRoutes,
  ...adminPlatformRoutes,
  ...adminSystemRoutes,
  ...adminShapingRoutes,
  ...adminIpWarmupRoutes,
  ...adminAuditLogRoutes,
];
