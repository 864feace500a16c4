/** Errors that mean "another transaction was in the way; the same work may succeed now". */
const CONFLICTS = new Set(['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT', 'SQLITE_BUSY']);

export const isConflict = (err: unknown): boolean => CONFLICTS.has(String((err as { code?: unknown } | null)?.code ?? ''));

/**
 * Runs `work` again when the database chose it as a deadlock victim (or it waited too long for
 * a lock), a few times with a short pause. Outcomes must not be dropped for that: a delivery
 * left unsettled is only taken back when its lease runs out, and is then sent a second time.
 */
export async function retryConflicts<T>(work: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= attempts || !isConflict(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, 5 * attempt + Math.random() * 10));
    }
  }
}
