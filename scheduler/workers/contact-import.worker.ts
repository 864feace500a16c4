import type { Runtime } from '../../app/runtime.js';
import type { ImportWorker } from '../../core/audience/imports/contact-import.runner.js';
import { startPollingLoop } from '../../lib/polling-loop.js';

export type ContactImportWorker = { stop(): Promise<void> };

/**
 * The scheduler process's contact import loop: one import at a time per process, every
 * scheduler node running one. Imports are claimed one by one under a lease named after this
 * process's lease, so an import whose process died (a restart, a kill) is taken over at the next
 * look, and resumes after its last committed batch. A stop lets the batch in progress commit,
 * then gives the import back. Each finished import is logged once: with its row (who uploaded
 * what, when, the options and the counts) it is the import's audit entry.
 */
export function startContactImportWorker(runtime: Runtime, options: { pollMs?: number } = {}): ContactImportWorker {
  const { services, logger } = runtime;
  const abort = new AbortController();
  const worker: ImportWorker = {
    owner: '',
    isDead: (owner) => services.processLease.isDead(owner),
    contactLimit: async (teamId) => (await services.teams.get(teamId)).plan.limits.contact_limit,
    signal: abort.signal,
  };

  const tick = async (): Promise<number> => {
    worker.owner = await services.processLease.ensure();
    const imp = await services.contactImportRunner.runNext(worker);
    if (!imp) return 0;
    if (imp.status === 'completed' || imp.status === 'failed')
      logger.info(
        {
          import: imp.id,
          team: imp.teamId,
          apiKey: imp.apiKeyId,
          file: imp.fileName,
          bytes: imp.fileSize,
          onConflict: imp.plan.onConflict,
          status: imp.status,
          ...imp.counts,
          reason: imp.failureReason ?? undefined,
        },
        'contact import finished',
      );
    return 1;
  };

  const loop = startPollingLoop({
    tick,
    hasRoom: () => !abort.signal.aborted,
    pollMs: options.pollMs ?? 1000,
    onError: (err) => logger.error({ err }, 'contact import stopped by an error; it resumes when its claim runs out'),
  });
  logger.info('contact import worker started');
  return {
    async stop() {
      abort.abort();
      await loop.stop();
    },
  };
}
