/**
 * Runs `work` until it succeeds, waiting the given delays between tries (so delays.length + 1
 * tries in all); the last failure is thrown. `onFailure` hears of each failure that is retried.
 */
export async function retryWithBackoff<T>(
  work: () => Promise<T>,
  delaysMs: readonly number[],
  onFailure?: (err: unknown, retryInMs: number) => void,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      const delay = delaysMs[attempt];
      if (delay === undefined) throw err;
      onFailure?.(err, delay);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
