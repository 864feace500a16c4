import { emailAttachmentRoutes } from './attachments.routes.js';
import { emailBatchRoutes } from './batch.routes.js';
import { emailChangeRoutes } from './changes.routes.js';
import { metricRoutes } from './metrics.routes.js';
import { emailReadRoutes } from './reads.routes.js';
import { emailSendRoutes } from './send.routes.js';
import { emailShareRoutes } from './email-share.routes.js';

/** Every route of the spec's Emails part (sending, batch, reads, changes, attachments, share links, metrics). */
export const emailRoutes = [
  ...emailSendRoutes,
  ...emailBatchRoutes,
  ...emailReadRoutes,
  ...emailChangeRoutes,
  ...emailAttachmentRoutes,
  ...emailShareRoutes,
  ...metricRoutes,
];
