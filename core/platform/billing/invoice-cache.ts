import type { Clock } from '../../../lib/clock.js';
import type { KeyValueStore } from '../../../lib/kv/kv.js';
import type { InvoiceList } from './billing-provider.js';

/** The spec: invoices are "read from the payment provider and cached 60 seconds per team". */
export const INVOICE_CACHE_MS = 60_000;

const key = (teamId: string) => `billing:invoices:${teamId}`;

/**
 * A team's invoice list, kept 60 seconds in the key-value store (Redis: shared by every API
 * process and node). The entry carries the time it was read, by the appliance's clock, and is
 * stale after 60 seconds of that clock; the store's own expiry only reclaims the space.
 */
export class InvoiceCache {
  constructor(private readonly deps: { kv: KeyValueStore; clock: Clock }) {}

  async get(teamId: string): Promise<InvoiceList | null> {
    const raw = await this.deps.kv.get(key(teamId));
    if (!raw) return null;
    const entry = JSON.parse(raw) as { at: number; list: InvoiceList };
    const age = this.deps.clock.now().getTime() - entry.at;
    return age >= 0 && age < INVOICE_CACHE_MS ? entry.list : null;
  }

  async set(teamId: string, list: InvoiceList): Promise<void> {
    const value = JSON.stringify({ at: this.deps.clock.now().getTime(), list });
    // The store only sets absent keys: a stale entry is dropped first.
    await this.deps.kv.delete(key(teamId));
    await this.deps.kv.setIfAbsent(key(teamId), value, INVOICE_CACHE_MS);
  }

  /** An invoice changed at the provider (paid, failed): the next read asks it again. */
  async forget(teamId: string): Promise<void> {
    await this.deps.kv.delete(key(teamId));
  }
}
