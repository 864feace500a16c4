export type PollingLoop = { wake(): void; stop(): Promise<void> };

export type PollingLoopOptions = {
  /** One round of work; returns how many items it took on. */
  tick: () => Promise<number>;
  /** Whether the worker could take more now (free slots). */
  hasRoom: () => boolean;
  pollMs: number;
  onError: (err: unknown) => void;
};

/**
 * The loop of a queue worker: tick again at once while ticks find work and there is room;
 * otherwise sleep `pollMs`, or less when woken (a slot came free, new work arrived). A wake-up
 * that comes while a tick runs is remembered, so freed slots are never left idle until the
 * next poll.
 */
export function startPollingLoop(options: PollingLoopOptions): PollingLoop {
  let stopped = false;
  let pending = false;
  let sleeper: (() => void) | null = null;

  const sleep = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        sleeper = null;
        resolve();
      };
      const timer = setTimeout(done, options.pollMs);
      sleeper = done;
    });

  const run = async () => {
    while (!stopped) {
      pending = false;
      let found = 0;
      try {
        found = await options.tick();
      } catch (err) {
        options.onError(err);
      }
      if (stopped) return;
      if ((found > 0 || pending) && options.hasRoom()) continue;
      await sleep();
    }
  };

  const wake = () => {
    if (sleeper) sleeper();
    else pending = true;
  };
  const running = run();
  return {
    wake,
    async stop() {
      stopped = true;
      wake();
      await running;
    },
  };
}
