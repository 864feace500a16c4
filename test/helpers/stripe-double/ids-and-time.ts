import { randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Random letters and digits, the way Stripe ids end. */
export function randomToken(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const byte of bytes) out += ALPHABET[byte % ALPHABET.length];
  return out;
}

/** Stripe-looking ids, prefix and length as Stripe issues them in test mode. */
export const newId = {
  customer: () => `cus_${randomToken(14)}`,
  product: () => `prod_${randomToken(14)}`,
  subscription: () => `sub_${randomToken(24)}`,
  subscriptionItem: () => `si_${randomToken(14)}`,
  invoice: () => `in_${randomToken(24)}`,
  invoiceLine: () => `il_${randomToken(24)}`,
  checkoutSession: () => `cs_test_${randomToken(58)}`,
  portalSession: () => `bps_${randomToken(24)}`,
  portalConfiguration: () => `bpc_${randomToken(24)}`,
  paymentMethod: () => `pm_${randomToken(24)}`,
  paymentIntent: () => `pi_${randomToken(24)}`,
  event: () => `evt_${randomToken(24)}`,
  request: () => `req_${randomToken(14)}`,
  meterEventIdentifier: () => `mev_${randomToken(24)}`,
};

/** Unix seconds, as every Stripe timestamp. */
export function unixSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

/** One calendar month later (Stripe's monthly period), clamped to the month's last day. */
export function addMonths(seconds: number, months: number): number {
  const date = new Date(seconds * 1000);
  const day = date.getUTCDate();
  const target = new Date(date.getTime());
  target.setUTCDate(1);
  target.setUTCMonth(target.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(day, lastDay));
  return Math.floor(target.getTime() / 1000);
}

/** A deep copy through JSON: what a webhook or an answer carries (Decimal values become strings). */
export function snapshot<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
