import type { BillingProvider } from './billing-provider.js';
import { INBOX_STORAGE_CODE } from './addon.catalog.js';
import { hasSubscription, isHeld, type SubscriptionState } from './billing-account.types.js';

export type StoragePurchase = 'add_item' | 'checkout' | 'held' | 'unavailable';

/**
 * GET /billing `storage_addon_purchase`, and what the two storage purchase routes obey:
 * `unavailable` when nothing can be charged (no provider, or no price configured for the storage
 * add-on), `held` while a payment of the subscription has failed, `add_item` when the team has a
 * subscription to add it to (POST /billing/addons), `checkout` otherwise (POST /billing/checkout).
 */
export function storagePurchase(
  provider: BillingProvider,
  state: SubscriptionState | null | undefined,
): StoragePurchase {
  if (!provider.configured || !provider.sells(INBOX_STORAGE_CODE)) return 'unavailable';
  if (isHeld(state)) return 'held';
  return hasSubscription(state) ? 'add_item' : 'checkout';
}

/** Where the browser comes back to after checkout when no return_url is given (return_to). */
export const RETURN_PATHS = {
  plan: '/dashboard/billing',
  inbox: '/dashboard/received',
  inbox_settings: '/dashboard/received?view=settings',
} as const;
export type ReturnTo = keyof typeof RETURN_PATHS;

/** Where the billing portal sends the browser back to. */
export const PORTAL_RETURN_PATH = RETURN_PATHS.plan;

/** An absolute https URL (the spec's rule for return_url). */
export function isHttpsUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * `url` with `param` (`checkout=success`) appended to its query, the rest kept byte for byte
 * (URLSearchParams would re-encode it, and a `{CHECKOUT_SESSION_ID}` placeholder with it), and
 * before any fragment.
 */
export function withQueryParam(url: string, param: string): string {
  const hash = url.indexOf('#');
  const head = hash === -1 ? url : url.slice(0, hash);
  const fragment = hash === -1 ? '' : url.slice(hash);
  const separator = !head.includes('?') ? '?' : head.endsWith('?') || head.endsWith('&') ? '' : '&';
  return `${head}${separator}${param}${fragment}`;
}
