import type { Command } from 'commander';
import { startApiServer } from '../../api/server.js';
import { assertStartable, createRuntime } from '../../core/runtime.js';
import { loadConfig } from '../../lib/config/load-config.js';
import { Shutdown } from '../../lib/shutdown.js';
import { startScheduler } from '../../scheduler/scheduler.js';
import { startWebhookWorker } from '../../scheduler/jobs/deliver-webhooks.worker.js';
import { startDeliveryWorker } from '../../mta/queue/delivery-worker.js';

type Part = 'api' | 'scheduler' | 'mta';

/** Starts the named processes in this one process and keeps running until a signal. */
async function serve(parts: Part[]): Promise<void> {
  const config = loadConfig();
  assertStartable(config);
  const runtime = await createRuntime(config);
  const shutdown = new Shutdown(runtime.logger);
  shutdown.add('runtime', () => runtime.close());
  if (parts.includes('scheduler')) {
    const scheduler = startScheduler(runtime);
    shutdown.add('scheduler', () => scheduler.stop());
    // Webhook delivery runs beside the cron jobs on every scheduler node (see the worker).
    const webhooks = startWebhookWorker(runtime);
    shutdown.add('webhooks', () => webhooks.stop());
  }
  if (parts.includes('mta')) {
    const worker = startDeliveryWorker(runtime);
    shutdown.add('mta', () => worker.stop());
  }
  if (parts.includes('api')) {
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
