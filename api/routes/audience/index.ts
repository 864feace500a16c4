import { audienceSegmentAliasRoutes } from './audience-segments.routes.js';
import { audienceAliasRoutes } from './audiences.routes.js';
import { contactEventRoutes } from './contact-events.routes.js';
import { contactPropertyRoutes } from './contact-properties.routes.js';
import { contactRoutes } from './contacts.routes.js';
import { contactImportRoutes } from './imports.routes.js';
import { segmentRoutes } from './segments.routes.js';
import { topicRoutes } from './topics.routes.js';

/** The audience half of document 2: contacts, contact properties, topics, segments. */
export const audienceRoutes = [
  // Before the contact routes: /contacts/imports is not /contacts/{contact}.
  ...contactImportRoutes,
  ...contactRoutes,
  ...contactEventRoutes,
  ...contactPropertyRoutes,
  ...topicRoutes,
  ...segmentRoutes,
  ...audienceSegmentAliasRoutes,
  ...audienceAliasRoutes,
];
