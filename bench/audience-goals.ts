/**
 * Issue 37's goals for the segment count and contact creates, with the figures the issue's table
 * gives for before this work, printed beside what a benchmark measured (bench/segments.bench.ts,
 * bench/audience.bench.ts). Lower is better for every figure here: the ratio is now / goal, and
 * under 1.00 means the goal is met.
 */
export type Goal = { what: string; before: string; goalMs: number };

export const SEGMENT_GOALS: Record<'mysql' | 'sqlite', Goal> = {
  mysql: { what: 'segment count, 3 conditions, MariaDB', before: '18,167 ms', goalMs: 1000 },
  sqlite: { what: 'segment count, 3 conditions, SQLite', before: '863 ms', goalMs: 300 },
};

export const CREATE_GOAL: Goal = {
  what: 'contact create at 32 clients, p99',
  before: 'p50 4,807 ms / p99 9,682 ms (MariaDB; SQLite 3,220 / 6,319 ms)',
  goalMs: 50,
};

export function printGoal(goal: Goal, nowMs: number): void {
  const ratio = nowMs / goal.goalMs;
  console.log(
    `  goal: ${goal.what} < ${goal.goalMs} ms | before: ${goal.before} | now: ${nowMs.toFixed(1)} ms | now/goal ${ratio.toFixed(2)} (lower is better; <= 1.00 meets it)${ratio < 1 ? ' MET' : ' not met'}`,
  );
}
