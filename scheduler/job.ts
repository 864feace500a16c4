import type { Services } from '../app/services.js';

/** One scheduled job: a name, a cron expression and the work, which calls core services. */
export type Job = {
  name: string;
  /** One line for `mailroom job run --help` and the docs: what the job does, and how often. */
  description: string;
  cron: string;
  /** Longest a run may take; the lease is held this long. */
  timeoutMs: number;
  run(services: Services): Promise<Record<string, number>>;
};
