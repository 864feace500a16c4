/**
 * Fault injection for crash tests: when the process runs with MAILROOM_ENV=test and
 * MAILROOM_CRASH_POINT=<name>, it kills itself with SIGKILL on reaching the point of that name,
 * so a test can stop it at an exact moment (between a commit and its answer, say) and check
 * what survives. Read once at start; anywhere else it is a comparison with undefined.
 */
const armed = process.env.MAILROOM_ENV === 'test' ? process.env.MAILROOM_CRASH_POINT || undefined : undefined;

export function crashPoint(name: string): void {
  if (armed === name) process.kill(process.pid, 'SIGKILL');
}
