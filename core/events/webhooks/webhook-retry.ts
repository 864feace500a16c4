/**
 * When a failed webhook delivery is tried again: the configured delays (seconds) by attempt
 * number, with +-10% jitter so deliveries that failed together (an endpoint that went down)
 * do not all come back at the same instant. null once the schedule is used up: the delivery
 * is failed. With a schedule of n delays a delivery gets n + 1 attempts.
 */
export function nextRetryAt(
  schedule: number[],
  attemptsSoFar: number,
  now: Date,
  random: () => number = Math.random,
): Date | null {
  if (attemptsSoFar < 1 || attemptsSoFar > schedule.length) return null;
  const delay = schedule[attemptsSoFar - 1]! * 1000 * (0.9 + 0.2 * random());
  return new Date(now.getTime() + delay);
}
