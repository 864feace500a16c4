import type { Delivery } from '../../core/sending/deliveries/delivery.types.js';
import type { Runtime } from '../../app/runtime.js';

/** Renewals of one claim's leases at most: 36 thirds, 12 leases (an hour with the default lease). */
const MAX_LEASE_RENEWALS = 36;

/**
 * Keeps a claim's leases while it is worked on: renewed at a third of their length (settled
 * deliveries drop out by themselves); a worker that dies stops renewing. Every step of an
 * attempt has its time-out, so a claim ends; should one hang anyway, renewal stops after
 * MAX_LEASE_RENEWALS and its deliveries are taken back like a dead worker's.
 */
export class LeaseRenewal {
  private renewals = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly runtime: Pick<Runtime, 'services' | 'config' | 'logger'>,
    private readonly claimed: Delivery[],
  ) {
    this.timer = setInterval(() => this.renew(), runtime.config.mta.leaseMs / 3);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private renew(): void {
    const { services, config, logger } = this.runtime;
    if (++this.renewals > MAX_LEASE_RENEWALS) {
      this.stop();
      logger.warn(
        { deliveries: this.claimed.length },
        'a claim outlasted its lease renewals; its deliveries will be taken back when the lease expires',
      );
      return;
    }
    services.deliveries
      .renewLeases(this.claimed, config.mta.leaseMs)
      .catch((err: unknown) => logger.warn({ err }, 'could not renew delivery leases'));
  }
}
