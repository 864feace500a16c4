import type { Clock } from '../../lib/clock.js';

export type MovableClock = Clock & {
  /** Jumps to `at` if that is ahead (never back): what waiting until then would show the appliance. */
  advanceTo(at: Date | number): void;
};

/**
 * The system clock, which a test can move forward instead of sleeping: after a jump it keeps
 * running from there, so the appliance sees time pass as it would have. Timers (setTimeout)
 * are not moved; only what the services read through their clock.
 */
export function movableClock(): MovableClock {
  let offset = 0;
  return {
    now: () => new Date(Date.now() + offset),
    advanceTo(at) {
      offset = Math.max(offset, new Date(at).getTime() - Date.now());
    },
  };
}
