import { isConflict } from './errors.js';

/**
 * Runs `work` again when the database chose it as a deadlock victim (or it waited too long for
 * a lock, or SQLite's writer lock was busy), a few times with a short, jittered pause. Work that
 * records something that already happened (a delivery attempt, a settled outcome) must not be
 * dropped for that: left unrecorded, it would be redone when its lease runs out.
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
