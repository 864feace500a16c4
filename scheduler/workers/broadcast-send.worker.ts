import type { Runtime } from '../../app/runtime.js';
import { startPollingLoop, type PollingLoop } from '../../lib/polling-loop.js';
import type { Scheduler } from '../scheduler.js';

/** How often the scheduler looks for a broadcast just sent (or whose scheduled time came). */
const POLL_MS = 250;

/**
 * Starts a broadcast's fan-out when it is sent, not at the fan-out job's next 5-second tick:
 * every POLL_MS one indexed read looks for due broadcasts (queued, scheduled and due, or sending
 * and left mid-way), and when there is one the fan-out job runs now, through the scheduler, so
 * its lease still lets one node fan out and a run already going is not doubled ('skipped').
 * The API and the scheduler are separate processes with no channel between them but the
 * database; a read every quarter second is cheaper than adding one.
 */
export function startBroadcastSendWatcher(runtime: Runtime, scheduler: Scheduler): { stop(): Promise<void> } {
  const { services, logger } = runtime;
  let loop: PollingLoop | null = null;
  let running: Promise<unknown> | null = null;
  const tick = async (): Promise<number> => {
    if (running || !(await services.broadcastFanOut.hasDue())) return 0;
    running = scheduler
      .runNow('fan-out-broadcasts')
      .catch((err: unknown) => logger.error({ err }, 'broadcast fan-out failed; the job retries at its next run'))
      .finally(() => (running = null));
    return 0;
  };
  loop = startPollingLoop({
    tick,
    hasRoom: () => running === null,
    pollMs: POLL_MS,
    onError: (err) => logger.error({ err }, 'looking for due broadcasts failed'),
  });
  return {
    async stop() {
      await loop?.stop();
      await running;
    },
  };
}
