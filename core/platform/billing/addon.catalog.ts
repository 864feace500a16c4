/**
 * Add-ons are data, like plans: what POST /billing/checkout and POST /billing/addons sell beside
 * a plan. `byUnit`: sold in any quantity (seats); otherwise one at most. `storage`: a storage
 * purchase, refused with 503 while `storage_addon_purchase` is `unavailable`.
 */
export type Addon = { code: string; name: string; byUnit: boolean; storage: boolean };

/** The add-on code the spec names for inbox seats. */
export const INBOX_SEAT_CODE = 'inbox_seat';
export const INBOX_STORAGE_CODE = 'inbox_storage_100gb';

export const ADDONS: readonly Addon[] = [
  { code: INBOX_SEAT_CODE, name: 'Inbox seat', byUnit: true, storage: false },
  { code: INBOX_STORAGE_CODE, name: 'Inbox storage, 100 GB', byUnit: false, storage: true },
];

const byCode = new Map(ADDONS.map((addon) => [addon.code, addon]));

export function findAddon(code: string): Addon | undefined {
  return byCode.get(code);
}
