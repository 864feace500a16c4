import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Delivery, Lane } from '../../core/deliveries/delivery.types.js';
import type { Runtime } from '../../core/runtime.js';
import { egressPools } from '../../lib/config/egress-pools.js';
import { DestinationDelivery } from '../delivery/destination-delivery.js';
import { MessagePreparer } from '../delivery/message-preparer.js';
import { OutcomeRecorder } from '../delivery/outcome-recorder.js';
import { EgressPicker } from '../pools/egress-picker.js';
import { BatchBuilder } from './batch-builder.js';
import { DestinationLimiter } from './destination-limiter.js';

/** Share of a worker's slots bulk mail may hold, so transactional mail always finds a free one. */
const BULK_SHARE = 0.5;

export type DeliveryWorker = { stop(): Promise<void>; wake(): void; readonly inFlight: number };

/**
 * The mta process's loop: hand accepted emails over to the queue, claim due deliveries with a
 * lease (transactional first, bulk only into its share of the slots), group them into batches
 * per email and destination, and deliver each destination's batches over one connection under
 * the per-destination cap. Several workers (processes, nodes) share the queue through the
 * claim; a worker that dies leaves leases that expire and are claimed again.
 */
export function startDeliveryWorker(runtime: Runtime): DeliveryWorker {
  const { config, services, logger, lookup } = runtime;
  const owner = `${hostname()}:${process.pid}`;
  const outcomes = new OutcomeRecorder(services, config, logger);
  const destination = new DestinationDelivery({ config, lookup, outcomes, ca: config.mta.tlsCaFile ? readFileSync(config.mta.tlsCaFile, 'utf8') : undefined });
  const batches = new BatchBuilder(services, new MessagePreparer(services), new EgressPicker(egressPools(config), config.mta.disabledIps), config.sandbox.simulatorDomain, outcomes);
  const limiter = new DestinationLimiter(config.mta.perDestinationConcurrency);
  // Claims small enough that the slots spread over several claims in flight: a destination's
  // share of one claim goes over one connection, so this is what lets one busy destination use
  // up to its per-destination cap of connections at once.
  const claimSize = Math.max(1, Math.ceil(config.mta.concurrency / config.mta.perDestinationConcurrency));
  const inFlight = { all: 0, bulk: 0 };
  const running = new Set<Promise<void>>();
  let stopped = false;
  let wake: (() => void) | null = null;
  let freed = false;

  const deliverClaimed = async (lane: Lane, claimed: Delivery[]) => {
    inFlight.all += claimed.length;
    if (lane === 'bulk') inFlight.bulk += claimed.length;
    try {
      const groups = await batches.build(claimed);
      // A destination's connection slot is held while sending; the outcomes settle after it is free.
      const sends = [...groups.entries()].map(async ([key, group]) => {
        const domain = key.split('|')[0]!;
        await (await limiter.run(domain, () => destination.send(domain, group))).settled;
      });
      await Promise.all(sends);
    } catch (err) {
      // Leases expire, so nothing is lost: the deliveries are claimed again later.
      logger.error({ err }, 'delivery batch failed; its deliveries will be retried when their lease expires');
    } finally {
      inFlight.all -= claimed.length;
      if (lane === 'bulk') inFlight.bulk -= claimed.length;
      freed = true;
      wake?.();
    }
  };

  const claim = async (lane: Lane, limit: number) => {
    if (limit <= 0) return 0;
    const claimed = await services.deliveries.claim(lane, limit, `${owner}:${randomBytes(6).toString('hex')}`, config.mta.leaseMs);
    if (claimed.length === 0) return 0;
    const work = deliverClaimed(lane, claimed);
    running.add(work);
    void work.finally(() => running.delete(work));
    return claimed.length;
  };

  /**
   * Fills up to `room` slots of a lane. When the first claim comes back full, more is due than
   * one claim holds: the rest of the room is claimed in parallel claims (they skip each other's
   * rows), so the claim rate keeps up with many connections finishing at once.
   */
  const claimLane = async (lane: Lane, room: number): Promise<number> => {
    const first = await claim(lane, Math.min(room, claimSize));
    if (first < claimSize || room <= claimSize) return first;
    const more: Array<Promise<number>> = [];
    for (let left = room - first; left > 0; left -= claimSize) more.push(claim(lane, Math.min(left, claimSize)));
    return first + (await Promise.all(more)).reduce((sum, n) => sum + n, 0);
  };

  const tick = async (): Promise<number> => {
    // The hand-over runs beside the claims (its deliveries are claimed by the next tick).
    const handing = services.deliveries.handOver().catch((err: unknown) => {
      logger.error({ err }, 'hand-over failed; the emails stay queued and are handed over later');
      return 0;
    });
    const free = config.mta.concurrency - inFlight.all;
    const transactional = await claimLane('transactional', free);
    const bulkRoom = Math.floor(config.mta.concurrency * BULK_SHARE) - inFlight.bulk;
    const bulk = await claimLane('bulk', Math.min(free - transactional, bulkRoom));
    return transactional + bulk + (await handing);
  };

  const loop = async () => {
    while (!stopped) {
      let claimed = 0;
      freed = false;
      try {
        claimed = await tick();
      } catch (err) {
        logger.error({ err }, 'mta tick failed');
      }
      if (claimed > 0 && inFlight.all < config.mta.concurrency) continue;
      // Slots freed while the tick ran (their wake-up found no sleeper): look again at once.
      if (freed && inFlight.all < config.mta.concurrency) {
        freed = false;
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, config.mta.pollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
    }
  };

  const looping = loop();
  logger.info({ owner, concurrency: config.mta.concurrency }, 'mta worker started');
  return {
    get inFlight() {
      return inFlight.all;
    },
    wake: () => wake?.(),
    async stop() {
      stopped = true;
      wake?.();
      await looping;
      await Promise.allSettled([...running]);
      destination.close();
    },
  };
}
