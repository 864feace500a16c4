import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Delivery, Lane } from '../../core/sending/deliveries/delivery.types.js';
import type { Email } from '../../core/sending/emails/email.types.js';
import type { Runtime } from '../../app/runtime.js';
import { egressPools } from '../../lib/config/egress-pools.js';
import { cachingLookup } from '../../lib/dns/caching-lookup.js';
import { startPollingLoop, type PollingLoop } from '../../lib/polling-loop.js';
import { DestinationDelivery } from '../delivery/destination-delivery.js';
import { MessagePreparer } from '../delivery/message-preparer.js';
import { OutcomeRecorder } from '../delivery/outcome-recorder.js';
import { EgressPicker } from '../pools/egress-picker.js';
import { BatchBuilder } from './batch-builder.js';
import { claimSizedParts } from './claim-parts.js';
import { DestinationLimiter } from './destination-limiter.js';
import { LeaseRenewal } from './lease-renewal.js';
import { outboundTls } from '../delivery/tls-policy/create-tls-policy.js';
import { TrafficShaper } from '../shaping/traffic-shaper.js';
import { WarmupGate } from '../shaping/warmup-gate.js';

/** Share of a worker's slots bulk mail may hold, so transactional mail always finds a free one. */
const BULK_SHARE = 0.5;
/** Emails handed over in one transaction at most. */
const HAND_OVER_MAX = 200;

/**
 * The mta process's loop: hand accepted emails over to the queue (keeping the deliveries that
 * fit in its free slots, leased to itself), claim due deliveries with a lease (transactional
 * first, bulk only into its share of the slots), group them into batches per email and
 * destination, and deliver each destination's batches over one connection under the
 * per-destination cap. Several workers (processes, nodes) share the queue through the claim; a
 * worker that dies leaves leases that expire and are claimed again.
 */
export class DeliveryWorker {
  private readonly owner = `${hostname()}:${process.pid}`;
  private readonly destination: DestinationDelivery;
  private readonly batches: BatchBuilder;
  private readonly limiter: DestinationLimiter;
  private readonly shaper: TrafficShaper;
  /**
   * Claims small enough that the slots spread over several claims in flight: a destination's
   * share of one claim goes over one connection, so this is what lets one busy destination use
   * up to its per-destination cap of connections at once.
   */
  private readonly claimSize: number;
  private readonly slots = { all: 0, bulk: 0 };
  private readonly running = new Set<Promise<void>>();
  private loop: PollingLoop | null = null;

  constructor(private readonly runtime: Runtime) {
    const { config, services, logger } = runtime;
    const lookup = cachingLookup(runtime.lookup, { freshMs: config.mta.dnsCacheMs, staleMs: config.mta.dnsStaleMs });
    const outcomes = new OutcomeRecorder(services, config, logger, runtime.metrics);
    this.shaper = new TrafficShaper({
      lookup,
      shaping: services.shaping,
      deliveries: services.deliveries,
      kv: runtime.kv,
      clock: runtime.clock,
      perDestination: config.mta.perDestinationConcurrency,
      metrics: runtime.metrics,
      holder: this.owner,
    });
    this.destination = new DestinationDelivery({
      config,
      lookup,
      outcomes,
      logger,
      ca: config.mta.tlsCaFile ? readFileSync(config.mta.tlsCaFile, 'utf8') : undefined,
      ...outboundTls({ ...runtime, tlsResults: runtime.tlsResults ?? services.tlsReports.sink }, lookup),
    });
    this.batches = new BatchBuilder(
      services,
      new MessagePreparer(services, runtime.metrics),
      new EgressPicker(egressPools(config), config.mta.disabledIps),
      config.sandbox.simulatorDomain,
      outcomes,
      new WarmupGate(services.shaping, this.shaper),
      (batch, until) => this.shaper.putBack([batch], until, 'warmup'),
    );
    this.limiter = new DestinationLimiter(config.mta.perDestinationConcurrency);
    this.claimSize = Math.max(1, Math.ceil(config.mta.concurrency / config.mta.perDestinationConcurrency));
  }

  /** Deliveries being worked on now. */
  get inFlight(): number {
    return this.slots.all;
  }

  start(): this {
    const { config, logger } = this.runtime;
    this.loop = startPollingLoop({
      tick: () => this.tick(),
      hasRoom: () => this.slots.all < config.mta.concurrency,
      pollMs: config.mta.pollMs,
      onError: (err) => logger.error({ err }, 'mta tick failed'),
    });
    logger.info({ owner: this.owner, concurrency: config.mta.concurrency }, 'mta worker started');
    return this;
  }

  wake(): void {
    this.loop?.wake();
  }

  async stop(): Promise<void> {
    await this.loop?.stop();
    await Promise.allSettled([...this.running]);
    this.destination.close();
  }

  /** One round: fresh mail first, then due transactional deliveries, then bulk into its share. */
  private async tick(): Promise<number> {
    const { config, logger } = this.runtime;
    const [handed, kept] = await this.handOver(config.mta.concurrency - this.slots.all).catch((err: unknown) => {
      logger.error({ err }, 'hand-over failed; the emails stay queued and are handed over later');
      return [0, 0];
    });
    const free = config.mta.concurrency - this.slots.all;
    const transactional = await this.claimLane('transactional', free);
    const bulkRoom = Math.floor(config.mta.concurrency * BULK_SHARE) - this.slots.bulk;
    const bulk = await this.claimLane('bulk', Math.min(free - transactional, bulkRoom));
    return handed + kept + transactional + bulk;
  }

  /**
   * Fresh mail: the hand-over keeps the deliveries that fit in the free slots, leased to this
   * worker, and they start at once in claim-sized parts (a part's share of a destination goes
   * over one connection, as a claim's does). Returns [emails handed over, deliveries kept].
   */
  private async handOver(room: number): Promise<[number, number]> {
    // As many emails as there is room for (at least a claim's worth, so a full worker still
    // moves mail into the queue for others): what this worker hands over, it mostly keeps.
    const limit = Math.min(HAND_OVER_MAX, Math.max(room, this.claimSize));
    const { handed, taken } = await this.runtime.services.deliveries.handOverAndTake(
      { token: this.token(), leaseMs: this.runtime.config.mta.leaseMs, room },
      limit,
    );
    let kept = 0;
    for (const part of claimSizedParts(taken, this.claimSize)) {
      const deliveries = part.flatMap((entry) => entry.deliveries);
      kept += deliveries.length;
      this.work(
        'transactional',
        deliveries,
        part.map((entry) => entry.email),
      );
    }
    return [handed, kept];
  }

  /**
   * Fills up to `room` slots of a lane. When the first claim comes back full, more is due than
   * one claim holds: the rest of the room is claimed in parallel claims (they skip each other's
   * rows), so the claim rate keeps up with many connections finishing at once.
   */
  private async claimLane(lane: Lane, room: number): Promise<number> {
    const size = this.claimSize;
    const first = await this.claim(lane, Math.min(room, size));
    if (first < size || room <= size) return first;
    const more: Array<Promise<number>> = [];
    for (let left = room - first; left > 0; left -= size) more.push(this.claim(lane, Math.min(left, size)));
    return first + (await Promise.all(more)).reduce((sum, n) => sum + n, 0);
  }

  private async claim(lane: Lane, limit: number): Promise<number> {
    if (limit <= 0) return 0;
    const claimed = await this.runtime.services.deliveries.claim(
      lane,
      limit,
      this.token(),
      this.runtime.config.mta.leaseMs,
    );
    if (claimed.length > 0) this.work(lane, claimed);
    return claimed.length;
  }

  /** Starts delivering a claim in the background; stop() waits for what is running. */
  private work(lane: Lane, claimed: Delivery[], emails?: Email[]): void {
    const work = this.deliverClaimed(lane, claimed, emails);
    this.running.add(work);
    void work.finally(() => this.running.delete(work));
  }

  private async deliverClaimed(lane: Lane, claimed: Delivery[], emails: Email[] = []): Promise<void> {
    this.slots.all += claimed.length;
    if (lane === 'bulk') this.slots.bulk += claimed.length;
    const renewal = new LeaseRenewal(this.runtime, claimed);
    try {
      const groups = await this.batches.build(claimed, emails);
      // A destination's connection slot is held while sending; the outcomes settle after it is free.
      const sends = [...groups.entries()].map(async ([key, group]) => {
        const [domain, ip] = key.split('|') as [string, string];
        const provider = group[0]!.provider ?? (await this.shaper.providerOf(domain));
        for (const batch of group) batch.provider = provider;
        await (
          await this.limiter.run(domain, () =>
            this.shaper.deliver(provider, ip, group, (batches, shape) => this.destination.send(domain, batches, shape)),
          )
        ).settled;
      });
      await Promise.all(sends);
    } catch (err) {
      // Leases expire, so nothing is lost: the deliveries are claimed again later.
      this.runtime.logger.error(
        { err },
        'delivery batch failed; its deliveries will be retried when their lease expires',
      );
    } finally {
      renewal.stop();
      this.slots.all -= claimed.length;
      if (lane === 'bulk') this.slots.bulk -= claimed.length;
      this.loop?.wake();
    }
  }

  private token(): string {
    return `${this.owner}:${randomBytes(6).toString('hex')}`;
  }
}

/** A started worker for this process's runtime. */
export function startDeliveryWorker(runtime: Runtime): DeliveryWorker {
  return new DeliveryWorker(runtime).start();
}
