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
import { DestinationLimiter } from './destination-limiter.js';

/** Share of a worker's slots bulk mail may hold, so transactional mail always finds a free one. */
const BULK_SHARE = 0.5;
/** Emails handed over in one transaction at most. */
const HAND_OVER_MAX = 200;
/** Renewals of one claim's leases at most: 36 thirds, 12 leases (an hour with the default lease). */
const MAX_LEASE_RENEWALS = 36;

export type DeliveryWorker = { stop(): Promise<void>; wake(): void; readonly inFlight: number };

/** Consecutive emails' deliveries in parts of about `size` (an email is never split). */
function claimSizedParts<T extends { deliveries: unknown[] }>(entries: T[], size: number): T[][] {
  const parts: T[][] = [];
  let part: T[] = [];
  let count = 0;
  for (const entry of entries) {
    if (count > 0 && count + entry.deliveries.length > size) {
      parts.push(part);
      part = [];
      count = 0;
    }
    part.push(entry);
    count += entry.deliveries.length;
  }
  if (part.length > 0) parts.push(part);
  return parts;
}

/**
 * The mta process's loop: hand accepted emails over to the queue (keeping the deliveries that
 * fit in its free slots, leased to itself), claim due deliveries with a lease (transactional
 * first, bulk only into its share of the slots), group them into batches per email and
 * destination, and deliver each destination's batches over one connection under the
 * per-destination cap. Several workers (processes, nodes) share the queue through the claim; a
 * worker that dies leaves leases that expire and are claimed again.
 */
export function startDeliveryWorker(runtime: Runtime): DeliveryWorker {
  const { config, services, logger } = runtime;
  const lookup = cachingLookup(runtime.lookup, { freshMs: config.mta.dnsCacheMs, staleMs: config.mta.dnsStaleMs });
  const owner = `${hostname()}:${process.pid}`;
  const outcomes = new OutcomeRecorder(services, config, logger);
  const destination = new DestinationDelivery({ config, lookup, outcomes, logger, ca: config.mta.tlsCaFile ? readFileSync(config.mta.tlsCaFile, 'utf8') : undefined });
  const batches = new BatchBuilder(services, new MessagePreparer(services), new EgressPicker(egressPools(config), config.mta.disabledIps), config.sandbox.simulatorDomain, outcomes);
  const limiter = new DestinationLimiter(config.mta.perDestinationConcurrency);
  // Claims small enough that the slots spread over several claims in flight: a destination's
  // share of one claim goes over one connection, so this is what lets one busy destination use
  // up to its per-destination cap of connections at once.
  const claimSize = Math.max(1, Math.ceil(config.mta.concurrency / config.mta.perDestinationConcurrency));
  const inFlight = { all: 0, bulk: 0 };
  const running = new Set<Promise<void>>();
  let loop: PollingLoop | null = null;

  const deliverClaimed = async (lane: Lane, claimed: Delivery[], emails: Email[] = []) => {
    inFlight.all += claimed.length;
    if (lane === 'bulk') inFlight.bulk += claimed.length;
    // Leases are renewed at a third of their length while the claim is worked on (settled
    // deliveries drop out by themselves); a worker that dies stops renewing. Every step of an
    // attempt has its time-out, so a claim ends; should one hang anyway, renewal stops after
    // MAX_LEASE_RENEWALS and its deliveries are taken back like a dead worker's.
    let renewals = 0;
    const renewal = setInterval(() => {
      if (++renewals > MAX_LEASE_RENEWALS) {
        clearInterval(renewal);
        logger.warn({ deliveries: claimed.length }, 'a claim outlasted its lease renewals; its deliveries will be taken back when the lease expires');
        return;
      }
      services.deliveries.renewLeases(claimed, config.mta.leaseMs).catch((err: unknown) => logger.warn({ err }, 'could not renew delivery leases'));
    }, config.mta.leaseMs / 3);
    renewal.unref();
    try {
      const groups = await batches.build(claimed, emails);
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
      clearInterval(renewal);
      inFlight.all -= claimed.length;
      if (lane === 'bulk') inFlight.bulk -= claimed.length;
      loop?.wake();
    }
  };

  const token = () => `${owner}:${randomBytes(6).toString('hex')}`;

  const start = (lane: Lane, claimed: Delivery[], emails?: Email[]) => {
    const work = deliverClaimed(lane, claimed, emails);
    running.add(work);
    void work.finally(() => running.delete(work));
  };

  /**
   * Fresh mail: the hand-over keeps the deliveries that fit in the free slots, leased to this
   * worker, and they start at once in claim-sized parts (a part's share of a destination goes
   * over one connection, as a claim's does). Returns [emails handed over, deliveries kept].
   */
  const handOver = async (room: number): Promise<[number, number]> => {
    // As many emails as there is room for (at least a claim's worth, so a full worker still
    // moves mail into the queue for others): what this worker hands over, it mostly keeps.
    const limit = Math.min(HAND_OVER_MAX, Math.max(room, claimSize));
    const { handed, taken } = await services.deliveries.handOverAndTake({ token: token(), leaseMs: config.mta.leaseMs, room }, limit);
    let kept = 0;
    for (const part of claimSizedParts(taken, claimSize)) {
      const deliveries = part.flatMap((entry) => entry.deliveries);
      kept += deliveries.length;
      start('transactional', deliveries, part.map((entry) => entry.email));
    }
    return [handed, kept];
  };

  const claim = async (lane: Lane, limit: number) => {
    if (limit <= 0) return 0;
    const claimed = await services.deliveries.claim(lane, limit, token(), config.mta.leaseMs);
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
    const [handed, kept] = await handOver(config.mta.concurrency - inFlight.all).catch((err: unknown) => {
      logger.error({ err }, 'hand-over failed; the emails stay queued and are handed over later');
      return [0, 0];
    });
    const free = config.mta.concurrency - inFlight.all;
    const transactional = await claimLane('transactional', free);
    const bulkRoom = Math.floor(config.mta.concurrency * BULK_SHARE) - inFlight.bulk;
    const bulk = await claimLane('bulk', Math.min(free - transactional, bulkRoom));
    return handed + kept + transactional + bulk;
  };

  loop = startPollingLoop({ tick, hasRoom: () => inFlight.all < config.mta.concurrency, pollMs: config.mta.pollMs, onError: (err) => logger.error({ err }, 'mta tick failed') });
  logger.info({ owner, concurrency: config.mta.concurrency }, 'mta worker started');
  return {
    get inFlight() {
      return inFlight.all;
    },
    wake: () => loop?.wake(),
    async stop() {
      await loop?.stop();
      await Promise.allSettled([...running]);
      destination.close();
    },
  };
}
