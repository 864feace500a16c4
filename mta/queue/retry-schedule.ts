/**
 * When a temporarily failed delivery is tried again: the configured delays (seconds) by attempt
 * number, the last one repeating, with +-10% jitter so deliveries deferred together by one
 * destination do not all come back at the same instant. null once the next try would fall
 * after the delivery's expiry: it bounces instead.
 */
export function nextAttemptAt(
  schedule: number[],
  attemptsSoFar: number,
  now: Date,
  expiresAt: Date,
  random: () => number = Math.random,
): Date | null {
  const base = schedule[Math.min(Math.max(attemptsSoFar - 1, 0), schedule.length - 1)]! * 1000;
  const delay = base * (0.9 + 0.2 * random());
  const at = new Date(now.getTime() + delay);
  return at.getTime() > expiresAt.getTime() ? null : at;
}
