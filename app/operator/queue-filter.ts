import type { QueueFilter } from '../../core/sending/deliveries/delivery.types.js';

const DOMAIN_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** A DNS name such as example.com (recipient domains, block-list zones). */
export const isDomainName = (value: string) => DOMAIN_NAME.test(value);

/** The purge preview counts at most this many: enough to tell a slip from the intended scope. */
export const PURGE_PREVIEW_LIMIT = 10_000;

/** A queue filter as the operator's outputs show it (the CLI's flags, the admin API's fields). */
export const filterView = (filter: QueueFilter) => ({
  email: filter.emailId,
  domain: filter.recipientDomain,
  team: filter.teamId,
});
