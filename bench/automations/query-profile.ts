import type { Knex } from 'knex';

type Entry = { count: number; ms: number };

export type QueryProfile = {
  /** Statements sent (BEGIN and COMMIT included). */
  statements: number;
  /** Time spent inside the driver on them, ms (SQLite: executing, fsync included; MariaDB: the round trip). */
  ms: number;
  /** Commits among them. */
  commits: number;
  commitMs: number;
  /** Statement shapes, most time first. */
  shapes: Array<{ sql: string; count: number; ms: number }>;
};

/** "in (?, ?, ?)" -> "in (?…)", whitespace collapsed, cut to 110 characters. */
const shapeOf = (sql: string) =>
  sql
    .replace(/\s+/g, ' ')
    .replace(/\((\?, )+\?\)/g, '(?…)')
    .replace(/(\(\?…\), )+\(\?…\)/g, '(?…), …')
    .trim()
    .slice(0, 110);

/**
 * Times every statement of one knex's dialect while it runs: the dialect client's `_query` (what
 * knex calls with a connection in hand, inside transactions too, BEGIN and COMMIT included) is
 * wrapped on its prototype, so transaction clients (created from the prototype) are timed as
 * well. Every knex of the dialect in this process is timed meanwhile: the benchmark profiles a
 * phase in which only the engine's knex is busy. `stop()` restores the driver and returns the
 * figures.
 */
export function profileQueries(knex: Knex): { stop(): QueryProfile } {
  const proto = Object.getPrototypeOf(knex.client) as {
    _query: (connection: unknown, query: { sql: string }) => Promise<unknown>;
  };
  const original = proto._query;
  const shapes = new Map<string, Entry>();
  proto._query = function (this: unknown, connection: unknown, query: { sql: string }) {
    const started = performance.now();
    const record = () => {
      const shape = shapeOf(query.sql);
      const entry = shapes.get(shape) ?? { count: 0, ms: 0 };
      entry.count++;
      entry.ms += performance.now() - started;
      shapes.set(shape, entry);
    };
    return original.call(this, connection, query).finally(record);
  };
  return {
    stop() {
      proto._query = original;
      const all = [...shapes.entries()].map(([sql, e]) => ({ sql, ...e })).sort((a, b) => b.ms - a.ms);
      const commits = all.filter((s) => /^commit/i.test(s.sql));
      return {
        statements: all.reduce((sum, s) => sum + s.count, 0),
        ms: all.reduce((sum, s) => sum + s.ms, 0),
        commits: commits.reduce((sum, s) => sum + s.count, 0),
        commitMs: commits.reduce((sum, s) => sum + s.ms, 0),
        shapes: all,
      };
    },
  };
}
