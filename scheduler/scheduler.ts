import { hostname } from 'node:os';
import cron from 'node-cron';
import { JobLease } from '../core/platform/leases/job-lease.js';
import type { Runtime } from '../app/runtime.js';
import type { Job } from './job.js';
import { jobs as defaultJobs } from './jobs/index.js';

export type Scheduler = { runNow(name: string): Promise<Record<string, number> | 'skipped'>; stop(): Promise<void> };

/**
 * Runs each job on its cron schedule with no overlap: in this process a job never starts while
 * its previous run is going, and across nodes the database lease lets one node run it, once for
 * each tick of its schedule (every node's timer fires; the first to take the tick runs it).
 */
export function startScheduler(runtime: Runtime, jobs: Job[] = defaultJobs): Scheduler {
  const lease = new JobLease(runtime.db.knex);
  // The process lease's id: another scheduler can tell at once that a holder died (SIGKILL).
  let holder = `${hostname()}:${process.pid}`;
  const holderReady = runtime.services.processLease.ensure().then((id) => (holder = id));
  const running = new Map<string, Promise<unknown>>();

  /** `tick`: the cron time this run is for; unset when run on demand. */
  const runJob = async (job: Job, tick?: Date): Promise<Record<string, number> | 'skipped'> => {
    if (running.has(job.name)) return 'skipped';
    await holderReady;
    const isDead = (other: string) => runtime.services.processLease.isDead(other);
    const now = runtime.clock.now();
    const request = { name: job.name, holder, ttlMs: job.timeoutMs, now, isDead, ...(tick ? { tick } : {}) };
    if (!(await lease.acquire(request))) return 'skipped';
    const started = performance.now();
    const work = job.run(runtime.services);
    running.set(job.name, work);
    try {
      const result = await work;
      // Frequent jobs that found nothing to do log at debug, so the journal shows work, not ticks.
      const level = Object.values(result).some((count) => count > 0) ? 'info' : 'debug';
      runtime.logger[level](
        { job: job.name, tick: tick?.toISOString(), ms: Math.round(performance.now() - started), ...result },
        'job finished',
      );
      return result;
    } catch (err) {
      runtime.logger.error({ err, job: job.name }, 'job failed');
      throw err;
    } finally {
      running.delete(job.name);
      await lease.release(job.name, holder, runtime.clock.now()).catch(() => undefined);
    }
  };

  const tasks = jobs.map((job) =>
    cron.schedule(job.cron, (context) => void runJob(job, wholeSecond(context.date)).catch(() => undefined), {
      name: job.name,
    }),
  );
  runtime.logger.info({ jobs: jobs.map((job) => job.name) }, 'scheduler started');
  return {
    runNow: (name) => {
      const job = jobs.find((candidate) => candidate.name === name);
      if (!job) throw new Error(`no job named ${name}; jobs: ${jobs.map((j) => j.name).join(', ')}`);
      return runJob(job);
    },
    async stop() {
      for (const task of tasks) await task.stop();
      await Promise.allSettled(running.values());
    },
  };
}

/** Cron's finest unit is the second: the tick a timer fired for, whatever milliseconds it fired at. */
const wholeSecond = (date: Date) => new Date(Math.floor(date.getTime() / 1000) * 1000);
