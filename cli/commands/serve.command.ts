import type { Command } from 'commander';
import { assertStartable, createRuntime } from '../../app/runtime.js';
import { loadConfig } from '../../lib/config/load-config.js';
import { Shutdown } from '../../lib/shutdown.js';

type Part = 'api' | 'scheduler' | 'mta';

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
    const [{ startScheduler }, { startWebhookWorker }] = await Promise.all([import('../../scheduler/scheduler.js'), import('../../scheduler/workers/webhook-delivery.worker.js')]);
    const scheduler = startScheduler(runtime);
    shutdown.add('scheduler', () => scheduler.stop());
    // Webhook delivery runs beside the cron jobs on every scheduler node (see the worker).
    const webhooks = startWebhookWorker(runtime);
    shutdown.add('webhooks', () => webhooks.stop());
  }
  if (parts.includes('mta')) {
    const { startDeliveryWorker } = await import('../../mta/queue/delivery-worker.js');
    const worker = startDeliveryWorker(runtime);
    shutdown.add('mta', () => worker.stop());
  }
  if (parts.includes('api')) {
    const { startApiServer } = await import('../../api/server.js');
    const api = await startApiServer(runtime);
    shutdown.add('api', () => api.close());
  }
  shutdown.installSignalHandlers();
}

export function registerServeCommands(program: Command): void {
  program
    .command('start')
    .description('run the appliance on one node: API, scheduler and MTA (the inbound MX joins when it is built)')
    .action(() => serve(['api', 'scheduler', 'mta']));
  program.command('api').description('run the REST API alone').action(() => serve(['api']));
  program.command('scheduler').description('run the scheduler alone').action(() => serve(['scheduler']));
  program.command('mta').description('run the outbound MTA (delivery workers) alone').action(() => serve(['mta']));
}
