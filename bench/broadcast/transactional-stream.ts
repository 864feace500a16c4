import { request } from '../../test/helpers/http.js';
import type { SmtpSink } from '../../test/helpers/smtp-sink.js';

/** One transactional email: when POST /emails answered 200, when it arrived at the sink, in which phase it was sent. */
export type TransactionalSample = { phase: string; okAt: number; arrivedAt: number | null };

/**
 * Transactional emails through POST /emails at a steady `rate` per second (each request on its
 * own, not waiting for the one before), one recipient each at `domain`, whose MX is `sink`.
 * Each email's latency is from the API's 200 to its arrival at the sink: the sink's messages
 * are watched every 2 ms (SmtpSink keeps them in arrival order), so an arrival is stamped at
 * most that late. `phase` labels the emails sent from now on (baseline, fan-out, drain...).
 */
export class TransactionalStream {
  phase = 'warm-up';
  readonly failures: string[] = [];
  private readonly byRecipient = new Map<string, TransactionalSample>();
  private readonly samples: TransactionalSample[] = [];
  private readonly watcher: NodeJS.Timeout;
  private seen = 0;
  private sent = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly url: string,
    private readonly token: string,
    private readonly sink: SmtpSink,
    private readonly domain: string,
    private readonly rate: number,
  ) {
    this.watcher = setInterval(() => this.watch(), 2);
  }

  /** Starts sending at the rate (again after a stop). */
  start(): void {
    if (this.timer) return;
    const interval = 1000 / this.rate;
    const started = performance.now();
    let n = 0;
    const next = () => {
      this.send();
      n++;
      this.timer = setTimeout(next, Math.max(0, started + n * interval - performance.now()));
    };
    next();
  }

  /** Stops sending; resolves once every request sent has been answered. */
  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await Promise.allSettled([...this.inFlight]);
  }

  /** Waits until every accepted email has arrived, or `timeoutMs`; returns how many are still missing. */
  async settle(timeoutMs: number): Promise<number> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const missing = this.samples.filter((s) => s.arrivedAt === null).length;
      if (missing === 0 || performance.now() > deadline) return missing;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Latencies in ms (200 to arrival) of the emails sent in one of `phases` that arrived, sorted. */
  latencies(phases: string[], from = 0, to = Number.POSITIVE_INFINITY): number[] {
    return this.samples
      .filter((s) => phases.includes(s.phase) && s.arrivedAt !== null && s.okAt >= from && s.okAt < to)
      .map((s) => s.arrivedAt! - s.okAt)
      .sort((a, b) => a - b);
  }

  /** Emails answered 200 in [from, to) (performance.now()) that have not arrived yet. */
  waiting(from: number, to: number): number {
    return this.samples.filter((s) => s.arrivedAt === null && s.okAt >= from && s.okAt < to).length;
  }

  /** Emails accepted in these phases, and how many of them have not arrived. */
  counts(phases: string[]): { accepted: number; missing: number } {
    const of = this.samples.filter((s) => phases.includes(s.phase));
    return { accepted: of.length, missing: of.filter((s) => s.arrivedAt === null).length };
  }

  close(): void {
    clearInterval(this.watcher);
    if (this.timer) clearTimeout(this.timer);
  }

  private send(): void {
    const recipient = `t${this.sent++}@${this.domain}`;
    const phase = this.phase;
    const work = request(this.url, '/emails', {
      method: 'POST',
      token: this.token,
      body: {
        from: 'Bench <hello@bench.test>',
        to: [recipient],
        subject: `Your receipt ${recipient}`,
        text: 'Thank you for your order. This is the receipt you asked for.',
      },
    }).then(
      (response) => {
        const okAt = performance.now();
        if (response.status !== 200) {
          this.failures.push(`${response.status}: ${response.text.slice(0, 200)}`);
          return;
        }
        const sample: TransactionalSample = { phase, okAt, arrivedAt: null };
        this.samples.push(sample);
        this.byRecipient.set(recipient, sample);
        this.watch(); // an arrival before the 200 was read (possible on a loaded machine) is matched now
      },
      (err: unknown) => void this.failures.push((err as Error).message),
    );
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  private readonly early = new Map<string, number>();

  private watch(): void {
    const now = performance.now();
    const { messages } = this.sink;
    for (; this.seen < messages.length; this.seen++) {
      const recipient = messages[this.seen]!.to[0]!;
      const sample = this.byRecipient.get(recipient);
      if (sample) sample.arrivedAt = now;
      else this.early.set(recipient, now);
    }
    for (const [recipient, at] of this.early) {
      const sample = this.byRecipient.get(recipient);
      if (!sample) continue;
      // Arrived before the client read the 200: counted as 0 ms (it was durable before delivery).
      sample.arrivedAt = Math.max(at, sample.okAt);
      this.early.delete(recipient);
    }
  }
}
