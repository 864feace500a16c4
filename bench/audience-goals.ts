/**
 * Issue 37's goals for the audience (segment count, contact creates, CSV import), with the figures
 * the issue's table gives for before this work, printed beside what a benchmark measured
 * (bench/segments.bench.ts, bench/audience.bench.ts). For times and memory lower is better: the
 * ratio is now / goal and 1.00 or under meets it; for rates it is now / goal, 1.00 or over.
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

/** The import's goals (MariaDB's figures before; SQLite's were 3,253 rows/s and 329 MB). */
export const IMPORT_RATE_GOAL = {
  what: 'CSV import, 5 properties',
  before: '5,178 rows/s (MariaDB), 3,253 (SQLite)',
  goal: 20_000,
};
export const IMPORT_RSS_GOAL = {
  what: 'CSV import, worker peak RSS',
  before: '331 MB (MariaDB), 329 MB (SQLite)',
  goal: 200,
};

export function printImportGoals(rowsPerSecond: number, peakRssMb: number): void {
  const rate = rowsPerSecond / IMPORT_RATE_GOAL.goal;
  const rss = peakRssMb / IMPORT_RSS_GOAL.goal;
  console.log(
    `  goal: ${IMPORT_RATE_GOAL.what} >= ${IMPORT_RATE_GOAL.goal} rows/s | before: ${IMPORT_RATE_GOAL.before} | now: ${Math.round(rowsPerSecond)} rows/s | now/goal ${rate.toFixed(2)} (higher is better; >= 1.00 meets it)${rate >= 1 ? ' MET' : ' not met'}`,
  );
  console.log(
    `  goal: ${IMPORT_RSS_GOAL.what} < ${IMPORT_RSS_GOAL.goal} MB | before: ${IMPORT_RSS_GOAL.before} | now: ${peakRssMb.toFixed(0)} MB | now/goal ${rss.toFixed(2)} (lower is better; <= 1.00 meets it)${rss < 1 ? ' MET' : ' not met'}`,
  );
}
