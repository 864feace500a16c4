import type { Clock } from '../../../lib/clock.js';
import type { Logger } from '../../../lib/logger.js';
import { rowKey, type TlsResultCount, type TlsResultRepository } from './tls-result.repository.js';
import type { TlsResultSink, TlsSessionResult } from './tls-result.types.js';

export type TlsResultAggregatorDeps = {
  repository: TlsResultRepository;
  clock: Clock;
  logger: Logger;
  flushMs: number;
};

/** UTC day of a moment, as RFC 8460's date-range and our rows name it. */
export const utcDay = (at: Date) => at.toISOString().slice(0, 10);

const clip = (text: string | null, max: number) => (text === null ? null : text.slice(0, max));

/** The dimensions RFC 8460 reports a session under (success rows carry no failure details). */
function countOf(result: TlsSessionResult): Omit<TlsResultCount, 'sessions'> {
  const failure = result.outcome === 'success' ? null : result.outcome;
  return {
    day: utcDay(result.at),
    policyDomain: result.policyDomain.toLowerCase().replace(/\.$/, ''),
    policyType: result.policyType,
    policyString: result.policyString,
    mxHost: clip(result.mxHost, 255),
    resultType: failure ? failure.failure : 'success',
    sendingIp: failure ? result.sendingIp : null,
    receivingMxHostname: failure ? clip(result.receivingMxHostname, 255) : null,
    receivingIp: failure ? result.receivingIp : null,
    additionalInfo: failure ? clip(failure.detail, 500) : null,
  };
}

/**
 * The MTA's TLS result sink: `record()` only adds to a count in memory (the delivery path calls
 * it once per connection); every flushMs the counts are added to the database in a few
 * statements, and `stop()` writes what is left. A failed write keeps the counts for the next
 * flush, so a database blip loses nothing. The timer starts with the first result, so processes
 * that never deliver (api, scheduler) never run it.
 */
export class TlsResultAggregator implements TlsResultSink {
  private pending = new Map<string, TlsResultCount>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly deps: TlsResultAggregatorDeps) {}

  record(result: TlsSessionResult): void {
    const dimensions = countOf(result);
    const key = rowKey(dimensions);
    const found = this.pending.get(key);
    if (found) found.sessions += 1;
    else this.pending.set(key, { ...dimensions, sessions: 1 });
    if (!this.timer && !this.stopped) {
      this.timer = setInterval(() => void this.flush(), this.deps.flushMs);
      this.timer.unref();
    }
  }

  /** Counts recorded and not yet written. */
  get pendingRows(): number {
    return this.pending.size;
  }

  /** Writes the counts so far; flushes run one at a time. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.write());
    return this.flushing;
  }

  /** Stops the timer and writes what is left (the mta's shutdown). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await this.deps.repository.add([...batch.values()], this.deps.clock.now());
    } catch (err) {
      // Kept for the next flush: counts recorded meanwhile are added to them.
      for (const [key, count] of batch) {
        const later = this.pending.get(key);
        if (later) later.sessions += count.sessions;
        else this.pending.set(key, count);
      }
      this.deps.logger.error(
        { err, rows: batch.size },
        'tls reports: could not write TLS results; kept for the next flush',
      );
    }
  }
}
