import type { WarmupSchedule } from './shaping.types.js';

/**
 * Messages a new address may send to each provider on day 1, 2, 3...: after the last day it is
 * warm. About doubling every two to three days over four weeks, the pace Gmail's and Microsoft's
 * postmaster guidance calls gradual ("increase volume slowly", Google sender guidelines;
 * Microsoft SNDS "warm-up"), with the strictest providers (Yahoo, Microsoft) a little slower.
 * `default` covers every other destination, per provider or per domain.
 */
const standard = [
  50, 100, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 4000, 5000, 7500, 10_000, 15_000, 20_000, 30_000, 40_000, 50_000,
  75_000, 100_000, 150_000, 200_000, 300_000, 400_000, 500_000, 750_000, 1_000_000,
];
const careful = [
  20, 50, 100, 150, 250, 400, 600, 800, 1000, 1500, 2000, 3000, 4000, 5000, 7500, 10_000, 15_000, 20_000, 30_000,
  40_000, 50_000, 75_000, 100_000, 150_000, 200_000, 300_000, 400_000, 500_000,
];

export const DEFAULT_WARMUP_SCHEDULE: WarmupSchedule = {
  default: standard,
  gmail: standard,
  yahoo: careful,
  microsoft: careful,
};
