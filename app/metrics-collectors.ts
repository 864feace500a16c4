import type { Runtime } from './runtime.js';

const QUEUE_STATES = ['queued', 'deferred', 'sending', 'held'] as const;
const LANES = ['transactional', 'bulk'] as const;

type TarnPool = { numUsed(): number; numFree(): number; numPendingAcquires(): number };

/**
 * Gauges of stored state, read when Prometheus scrapes. Each is registered by one kind of
 * process only, so a node running every process as its own unit reports each series once:
 * the queue by the MTA, the webhook outbox by the scheduler (which delivers webhooks).
 */
export function registerScrapeCollectors(runtime: Runtime, parts: { mta: boolean; scheduler: boolean }): void {
  const { metrics, services, clock, db } = runtime;
  metrics.onScrape(async () => {
    // tarn's pool, behind knex's client (not part of knex's typings).
    const pool = (db.knex.client as { pool?: TarnPool }).pool;
    if (!pool) return;
    metrics.databasePool.set({ state: 'used' }, pool.numUsed());
    metrics.databasePool.set({ state: 'free' }, pool.numFree());
    metrics.databasePool.set({ state: 'pending' }, pool.numPendingAcquires());
  });
  if (parts.mta)
    metrics.onScrape(async () => {
      // Every state and lane is set, to 0 when none: a series that vanishes when the queue
      // empties would read as "no data" rather than "empty".
      const depth = await services.deliveries.queueDepth();
      for (const state of QUEUE_STATES)
        for (const lane of LANES)
          metrics.queueDeliveries.set(
            { state, lane },
            depth.find((row) => row.state === state && row.lane === lane)?.count ?? 0,
          );
      const now = clock.now();
      const oldest = await services.deliveries.oldestDue(now);
      metrics.queueOldestDueSeconds.set(oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0);
    });
  if (parts.mta)
    metrics.onScrape(async () => {
      // Warm-up progress per address and provider: the series of an address that finished go away.
      metrics.warmupDay.reset();
      metrics.warmupSentToday.reset();
      metrics.warmupAllowanceToday.reset();
      const providers = services.shaping.providers.all().map((rule) => rule.name);
      for (const status of await services.shaping.warmup.status(providers)) {
        if (status.complete) continue;
        metrics.warmupDay.set({ ip: status.address }, status.day);
        for (const provider of status.providers) {
          metrics.warmupSentToday.set({ ip: status.address, provider: provider.provider }, provider.sent);
          if (provider.allowance !== null)
            metrics.warmupAllowanceToday.set({ ip: status.address, provider: provider.provider }, provider.allowance);
        }
      }
    });
  if (parts.scheduler)
    metrics.onScrape(async () => metrics.webhookOutbox.set(await services.webhookDeliveries.waitingCount()));
}
