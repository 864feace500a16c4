/**
 * The node options production gives the MTA (systemd/mailroom-mta.service sets NODE_OPTIONS to
 * these), so the benchmark measures the worker as it runs there: `npm run bench:mta` starts the
 * benchmark process with them (the worker runs in it by default) and `mailroom mta` processes
 * it spawns get them too.
 */
export const MTA_NODE_OPTIONS: readonly string[] = ['--max-semi-space-size=64'];

/** Those of MTA_NODE_OPTIONS this process was not started with (listed with the conditions). */
export function missingMtaNodeOptions(): string[] {
  return MTA_NODE_OPTIONS.filter(
    (option) => !process.execArgv.includes(option) && !(process.env.NODE_OPTIONS ?? '').split(/\s+/).includes(option),
  );
}
