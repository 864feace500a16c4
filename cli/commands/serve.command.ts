import type { Command } from 'commander';
import { assertStartable, createRuntime } from '../../app/runtime.js';
import { loadConfig } from '../../lib/config/load-config.js';
import { Shutdown } from '../../lib/shutdown.js';
import { startMetricsServer } from '../../lib/metrics/metrics-server.js';
import { registerScrapeCollectors } from '../../app/metrics-collectors.js';

type Part = 'api' | 'scheduler' | 'mta' | 'submission' | 'inbound';

/** Starts the named processes in this one process and keeps running until a signal. */
async function serve(parts: Part[]): Promise<void> {
  const config = loadConfig();
  assertStartable(config);
  const runtime = await createRuntime(config);
  const shutdown = new Shutdown(runtime.logger);
  shutdown.add('runtime', () => runtime.close());
  // The processes' own modules are imported here, not at the top: every other `mailroom`
  // command (queue, team, ip...) starts without loading the API server and the workers.
  if (parts.includes('scheduler')) {
    const [{ startScheduler }, { startWebhookWorker }, { startContactImportWorker }, { startBroadcastSendWatcher }] =
      await Promise.all([
        import('../../scheduler/scheduler.js'),
        import('../../scheduler/workers/webhook-delivery.worker.js'),
        import('../../scheduler/workers/contact-import.worker.js'),
        import('../../scheduler/workers/broadcast-send.worker.js'),
      ]);
    const scheduler = startScheduler(runtime);
    shutdown.add('scheduler', () => scheduler.stop());
    // A broadcast sent fans out at once, not at the fan-out job's next tick (see the watcher).
    const broadcastSends = startBroadcastSendWatcher(runtime, scheduler);
    shutdown.add('broadcast sends', () => broadcastSends.stop());
    // Webhook delivery runs beside the cron jobs on every scheduler node (see the worker).
    const webhooks = startWebhookWorker(runtime);
    shutdown.add('webhooks', () => webhooks.stop());
    // Contact imports too: a stop lets the batch in progress commit, then gives the import back.
    const imports = startContactImportWorker(runtime);
    shutdown.add('contact imports', () => imports.stop());
  }
  if (parts.includes('mta')) {
    const { startDeliveryWorker } = await import('../../mta/queue/delivery-worker.js');
    const worker = startDeliveryWorker(runtime);
    shutdown.add('mta', () => worker.stop());
  }
  if (parts.includes('submission')) {
    const { startSubmissionServer } = await import('../../submission/submission-server.js');
    const submission = await startSubmissionServer(runtime);
    shutdown.add('submission', () => submission.close());
  }
  if (parts.includes('inbound')) {
    const { startInboundServer } = await import('../../inbound/inbound-server.js');
    const inbound = await startInboundServer(runtime);
    shutdown.add('inbound', () => inbound.close());
  }
  if (parts.includes('api')) {
    const { startApiServer } = await import('../../api/server.js');
    const api = await startApiServer(runtime);
    shutdown.add('api', () => api.close());
  }
  if (config.metrics.enabled) {
    registerScrapeCollectors(runtime, { mta: parts.includes('mta'), scheduler: parts.includes('scheduler') });
    runtime.metrics.serveAs(parts.length > 1 ? 'start' : parts[0]!);
    // Metrics are for watching, not for working: a taken port is an error in the log, not a stop.
    const metrics = await startMetricsServer(runtime.metrics, config.metrics).catch((err: unknown) => {
      runtime.logger.error({ err, ...config.metrics }, 'metrics: could not listen; this process serves no /metrics');
      return null;
    });
    if (metrics) {
      shutdown.add('metrics', () => metrics.close());
      runtime.logger.info({ url: metrics.url }, 'metrics listening');
    }
  }
  shutdown.installSignalHandlers();
}

export function registerServeCommands(program: Command): void {
  program
    .command('start')
    .description('run the appliance on one node: API, SMTP submission, inbound MX (Haraka), scheduler and MTA')
    .action(() => serve(['submission', 'inbound', 'scheduler', 'mta', 'api']));
  program
    .command('api')
    .description('run the REST API alone')
    .action(() => serve(['api']));
  program
    .command('scheduler')
    .description('run the scheduler alone')
    .action(() => serve(['scheduler']));
  program
    .command('mta')
    .description('run the outbound MTA (delivery workers) alone')
    .action(() => serve(['mta']));
  program
    .command('inbound')
    .description('run the inbound MX alone: Haraka with our plugins (port 25 in production)')
    .action(() => serve(['inbound']));
  program
    .command('submission')
    .description('run the SMTP submission server alone (ports 587 and 465 in production)')
    .action(() => serve(['submission']));
}
