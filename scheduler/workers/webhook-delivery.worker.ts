import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Runtime } from '../../app/runtime.js';
import { startPollingLoop, type PollingLoop } from '../../lib/polling-loop.js';
import type { WebhookDelivery } from '../../core/events/webhooks/webhook.types.js';

export type WebhookWorker = { stop(): Promise<void>; wake(): void; readonly inFlight: number };

/**
 * The scheduler process's webhook delivery loop. It is not a cron job under the job lease: every
 * scheduler node runs one, and they share the outbox through lease claims (SKIP LOCKED on
 * MySQL), so adding nodes adds delivery capacity and no attempt is made twice. Up to
 * webhooks.concurrency deliveries are in flight; an idle loop looks again every pollMs.
 */
export function startWebhookWorker(runtime: Runtime): WebhookWorker {
  const { config, services, logger } = runtime;
  const owner = `${hostname()}:${process.pid}`;
  const running = new Set<Promise<void>>();
  let loop: PollingLoop | null = null;
  services.webhookDispatcher.onEndpointDisabled((info) =>
    logger.warn(info, 'webhook endpoint disabled: every attempt failed for webhooks.disableAfterSeconds'),
  );

  const start = (delivery: WebhookDelivery) => {
    const work = services.webhookDispatcher
      .deliver(delivery)
      .then((outcome) => void runtime.metrics.webhookAttempts.inc({ outcome }))
      // The lease runs out and another claim retries it: nothing is lost.
      .catch((err: unknown) =>
        logger.error({ err, delivery: delivery.id }, 'webhook delivery failed; it is retried when its lease ends'),
      )
      .finally(() => {
        running.delete(work);
        // A slot came free: a loop that slept because it was full looks again at once.
        loop?.wake();
      });
    running.add(work);
  };

  const tick = async (): Promise<number> => {
    const free = config.webhooks.concurrency - running.size;
    if (free <= 0) return 0;
    const claimed = await services.webhookDispatcher.claim(
      Math.min(free, 100),
      `${owner}:${randomBytes(6).toString('hex')}`,
    );
    for (const delivery of claimed) start(delivery);
    return claimed.length;
  };

  loop = startPollingLoop({
    tick,
    hasRoom: () => running.size < config.webhooks.concurrency,
    pollMs: config.webhooks.pollMs,
    onError: (err) => logger.error({ err }, 'webhook claim failed'),
  });
  logger.info({ owner, concurrency: config.webhooks.concurrency }, 'webhook worker started');
  return {
    get inFlight() {
      return running.size;
    },
    wake: () => loop?.wake(),
    async stop() {
      await loop?.stop();
      await Promise.allSettled([...running]);
    },
  };
}
