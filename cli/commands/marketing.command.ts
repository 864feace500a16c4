import type { Command } from 'commander';
import type { Runtime } from '../../app/runtime.js';
import { printJson } from '../output.js';
import { withRuntime } from './admin.command.js';

/** What the switch says now, and where the value comes from. */
async function status(runtime: Runtime) {
  const stored = await runtime.services.settings.get('marketing.enabled');
  return {
    marketing: (await runtime.services.marketingEnabled()) ? 'enabled' : 'paused',
    source: stored === null ? 'configuration (marketing.enabled)' : 'mailroom marketing pause|resume',
  };
}

/**
 * `mailroom marketing pause|resume|status`: broadcasts switched off or on platform-wide, on
 * every node within seconds (the switch is in the database). While paused, sends are refused
 * (403) and broadcasts already sending stop at their next page until resumed.
 */
export function registerMarketingCommands(program: Command): void {
  const marketing = program.command('marketing').description('broadcasts switched on or off platform-wide');
  marketing
    .command('pause')
    .description('refuse broadcast sends (403) and hold broadcasts already sending, on every node')
    .action(() =>
      withRuntime(async (runtime) => {
        await runtime.services.settings.set('marketing.enabled', 'false');
        printJson(await status(runtime));
      }),
    );
  marketing
    .command('resume')
    .description('allow broadcast sends again; held broadcasts continue where they stopped')
    .action(() =>
      withRuntime(async (runtime) => {
        await runtime.services.settings.set('marketing.enabled', 'true');
        printJson(await status(runtime));
      }),
    );
  marketing
    .command('status')
    .description('whether broadcasts may be sent, and where that comes from')
    .action(() => withRuntime(async (runtime) => printJson(await status(runtime))));
}
