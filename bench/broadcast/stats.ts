/** The q-quantile (0..1) of sorted values, nearest rank; NaN when there are none. */
export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** "n=.., p50 .. ms, p95 .. ms, p99 .. ms, max .. ms" of sorted latencies in ms. */
export function latencySummary(sorted: number[]): string {
  if (sorted.length === 0) return 'n=0';
  const ms = (value: number) => `${Math.round(value)} ms`;
  return `n=${sorted.length}, p50 ${ms(quantile(sorted, 0.5))}, p95 ${ms(quantile(sorted, 0.95))}, p99 ${ms(quantile(sorted, 0.99))}, max ${ms(sorted[sorted.length - 1]!)}`;
}

export const seconds = (ms: number, digits = 1) => `${(ms / 1000).toFixed(digits)} s`;

/** A positive number from the environment, else `fallback`; anything else is an error. */
export function positiveEnv(name: string, fallback: number, integer = true): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!(value > 0) || (integer && !Number.isInteger(value)))
    throw new Error(`${name} must be a positive ${integer ? 'integer' : 'number'}`);
  return value;
}
