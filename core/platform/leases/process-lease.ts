import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Knex } from 'knex';
import { isProcessAlive } from '../../../lib/process-alive.js';
import { ProcessLeaseRepository } from './process-lease.repository.js';

/** A lease not renewed for this long belongs to a process that died (on another node). */
const TTL_MS = 15_000;
const RENEW_EVERY_MS = 5_000;

/**
 * This process's lease: a row renewed while the process lives. Claims a process holds (an
 * Idempotency-Key in flight) name its lease, so another process can tell a live claim from one
 * left by a crash: a claim whose lease is gone or expired, or whose process on this node no
 * longer exists, is dead at once. On the node that crashed, that means a retry after the
 * restart is answered at once; a node that died for good is known dead after TTL_MS.
 *
 * Wall-clock time on purpose (not the injectable clock): liveness is about real time.
 */
export class ProcessLease {
  readonly id = `${hostname()}:${process.pid}:${randomBytes(6).toString('hex')}`;
  private readonly repository: ProcessLeaseRepository;
  private registered: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    knex: Knex,
    private readonly onRenewFailed: (err: unknown) => void = () => {},
  ) {
    this.repository = new ProcessLeaseRepository(knex);
  }

  /** Registers the lease on first use and keeps it renewed; resolves to its id. */
  async ensure(): Promise<string> {
    this.registered ??= this.register();
    await this.registered;
    return this.id;
  }

  private async register(): Promise<void> {
    const now = new Date();
    await this.renew(now);
    this.timer = setInterval(() => void this.renew(new Date()).catch(this.onRenewFailed), RENEW_EVERY_MS);
    this.timer.unref();
  }

  private renew(now: Date): Promise<void> {
    return this.repository.upsert({
      id: this.id,
      node: hostname(),
      pid: process.pid,
      startedAt: now,
      expiresAt: new Date(now.getTime() + TTL_MS),
    });
  }

  /** Whether the process holding lease `id` is gone: no row, expired, or its pid dead on this node. */
  async isDead(id: string): Promise<boolean> {
    if (id === this.id) return false;
    const lease = await this.repository.find(id);
    if (!lease || lease.expiresAt.getTime() <= Date.now()) return true;
    return lease.node === hostname() && lease.pid !== process.pid && !isProcessAlive(lease.pid);
  }

  /** Leases of processes that stopped without removing theirs, a day after they expired. */
  async purgeExpired(): Promise<number> {
    return this.repository.removeExpiredBefore(new Date(Date.now() - 24 * 3600_000));
  }

  /** A clean stop removes the lease: the claims it still names are dead from now on. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.registered) await this.repository.remove(this.id).catch(() => {});
    this.registered = undefined;
  }
}
