import { createHash } from 'node:crypto';
import type { EgressAddress, EgressRegion } from '../../lib/config/egress-pools.js';

/**
 * Picks the egress address of a message from its region's pool by weighted rendezvous hashing
 * of the message id: the same message (so every retry) leaves from the same address, and taking
 * one address out (disabled by the operator, or resting from a destination that blocklisted it)
 * moves only the mail that address carried.
 */
export class EgressPicker {
  private readonly pools: Record<EgressRegion, EgressAddress[]>;

  constructor(pools: Record<EgressRegion, EgressAddress[]>, disabled: string[] = []) {
    const off = new Set(disabled);
    this.pools = Object.fromEntries(
      Object.entries(pools).map(([region, pool]) => [region, pool.filter((ip) => !off.has(ip.address))]),
    ) as Record<EgressRegion, EgressAddress[]>;
  }

  /** null when every address of the region is disabled or resting for this destination. */
  pick(region: EgressRegion, messageKey: string, resting: ReadonlySet<string> = new Set()): EgressAddress | null {
    let best: EgressAddress | null = null;
    let bestScore = -Infinity;
    for (const candidate of this.pools[region] ?? []) {
      if (resting.has(candidate.address)) continue;
      const score = rendezvousScore(messageKey, candidate);
      if (score > bestScore) {
        best = candidate;
        bestScore = score;
      }
    }
    return best;
  }

  addresses(region: EgressRegion): EgressAddress[] {
    return this.pools[region] ?? [];
  }
}

/** -weight / ln(u), u uniform in (0,1) from a hash: higher weights win proportionally more often. */
function rendezvousScore(key: string, candidate: EgressAddress): number {
  const digest = createHash('sha256').update(`${key}\0${candidate.address}`).digest();
  const u = (digest.readUIntBE(0, 6) + 1) / (2 ** 48 + 2);
  return -candidate.weight / Math.log(u);
}
