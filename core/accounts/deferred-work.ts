import type { Logger } from '../../lib/logger.js';

/** How a job is put off: by default until the event loop's next turn, after the answer's own work. */
export type Schedule = (start: () => void) => void;

const nextTurn: Schedule = (start) => void setImmediate(start);

/**
 * Work a request starts but does not wait for, so the answer cannot depend on it (its timing
 * included): a password-reset request answers known and unknown addresses alike, then mails the
 * link. A job that fails is logged, never thrown (nobody is left to catch it); `drain` waits for
 * every job started, for a clean shutdown and for tests.
 */
export class DeferredWork {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly logger: Logger,
    private readonly schedule: Schedule = nextTurn,
  ) {}

  /** Runs `job` later; a failure is logged as `what` with `ref` (ids only: never a token). */
  run(what: string, ref: Record<string, string>, job: () => Promise<void>): void {
    const done: Promise<void> = new Promise<void>((start) => this.schedule(start))
      .then(job)
      .catch((err: unknown) => this.logger.error({ err, ...ref }, `${what} failed after the answer`))
      .finally(() => this.pending.delete(done));
    this.pending.add(done);
  }

  /** Resolves once every job started so far (and any they started) has ended. */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }
}
