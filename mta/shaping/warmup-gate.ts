import type { Delivery } from '../../core/sending/deliveries/delivery.types.js';
import type { Provider } from '../../core/sending/shaping/provider-matcher.js';
import type { ShapingServices } from '../../core/sending/shaping/shaping.services.js';
import type { EgressAddress } from '../../lib/config/egress-pools.js';
import type { TrafficShaper } from './traffic-shaper.js';

export type WarmupChoice =
  | { kind: 'egress'; egress: EgressAddress; warming: boolean; provider?: Provider }
  /** Every address able to carry it is warming and has used today's allowance: it waits for tomorrow. */
  | { kind: 'wait'; until: Date }
  /** No address at all (disabled or resting): the caller defers as before. */
  | { kind: 'none' };

/** Mail that waits for tomorrow's allowance comes due over the first minutes of the day, not at once. */
const DAY_START_SPREAD_MS = 10 * 60_000;

/**
 * The egress pick with IP warm-up: the address the stable hash picks carries the message unless
 * it is warming and today's allowance for the destination's provider is used up; then the next
 * address of the pool by the same hash, and so on. Warm addresses take what warming ones cannot;
 * with none left, the mail waits for the next UTC day (queued, never bounced).
 */
export class WarmupGate {
  constructor(
    private readonly shaping: ShapingServices,
    private readonly shaper: TrafficShaper,
  ) {}

  async choose(
    pick: (excluded: ReadonlySet<string>) => EgressAddress | null,
    recipientDomain: string,
    group: Delivery[],
    resting: ReadonlySet<string>,
  ): Promise<WarmupChoice> {
    let egress = pick(resting);
    if (!egress) return { kind: 'none' };
    const warming = await this.shaping.warmup.warming();
    if (warming.size === 0) return { kind: 'egress', egress, warming: false };
    const excluded = new Set(resting);
    let provider: Provider | undefined;
    while (egress) {
      const warmup = warming.get(egress.address);
      if (!warmup) return { kind: 'egress', egress, warming: false, provider };
      provider ??= await this.shaper.providerOf(recipientDomain);
      const take = await this.shaping.warmup.take(warmup, provider, group.length, group[0]!.lane);
      if (take.allowed) return { kind: 'egress', egress, warming: true, provider };
      excluded.add(egress.address);
      egress = pick(excluded);
    }
    const until = new Date(this.shaping.warmup.tomorrow().getTime() + Math.floor(Math.random() * DAY_START_SPREAD_MS));
    return { kind: 'wait', until };
  }
}
