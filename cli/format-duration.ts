const UNITS: Array<[string, number]> = [
  ['d', 86_400],
  ['h', 3_600],
  ['m', 60],
  ['s', 1],
];

/**
 * A duration as an operator reads it at a glance: the largest unit and the next one when it is
 * not zero ("2d 4h", "3m 10s", "45s", "2d"). Exact seconds go beside it for scripts.
 */
export function formatDuration(totalSeconds: number): string {
  const seconds = Math.max(0, Math.floor(totalSeconds));
  const first = UNITS.findIndex(([, size]) => seconds >= size);
  if (first === -1) return '0s';
  const [unit, size] = UNITS[first]!;
  const parts = [`${Math.floor(seconds / size)}${unit}`];
  const next = UNITS[first + 1];
  if (next && Math.floor((seconds % size) / next[1]) > 0)
    parts.push(`${Math.floor((seconds % size) / next[1])}${next[0]}`);
  return parts.join(' ');
}
