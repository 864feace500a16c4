import { inboxDraftRoutes } from './inbox-drafts.routes.js';
import { inboxEmailRoutes } from './inbox-emails.routes.js';
import { inboxLabelRoutes } from './inbox-labels.routes.js';
import { inboxThreadRoutes } from './inbox-threads.routes.js';
import { inboxRoutes as inboxResourceRoutes } from './inboxes.routes.js';

/** Shared inboxes (issue 38): the SDK's inboxes.* resource. */
export const inboxRoutes = [
  ...inboxResourceRoutes,
  ...inboxLabelRoutes,
  ...inboxThreadRoutes,
  ...inboxEmailRoutes,
  ...inboxDraftRoutes,
];
