import type { Knex } from 'knex';
import { isConflict, isUniqueViolation } from '../../../db/errors.js';
import type { FileBlobStore } from '../../../lib/blob-store.js';
import type { Clock } from '../../../lib/clock.js';
import { crashPoint } from '../../../lib/crash-point.js';
import type { ConsentLog } from '../consent/consent-log.js';
import { ContactRepository } from '../contacts/contact.repository.js';
import type { ContactPropertyService } from '../properties/contact-property.service.js';
import { ContactImportRepository } from './contact-import.repository.js';
import { IMPORT_FILES, KEPT_FAILURES, type ContactImport, type ImportCounts } from './contact-import.types.js';
import { csvBatches, CsvFileError, type CsvRecord } from './csv-source.js';
import { decideBatch } from './import-batch.js';
import { ImportWritesRepository } from './import-writes.repository.js';
import { readRow, type RowOutcome } from './row-rules.js';

/** What the process running imports supplies (the scheduler's import worker). */
export type ImportWorker = {
  /** The claim's owner: this process's lease id. */
  owner: string;
  /** Whether the process holding a claim is gone: its import is taken over at once, not after the lease. */
  isDead(owner: string): Promise<boolean>;
  /** The team's plan limit on contacts. */
  contactLimit(teamId: string): Promise<number>;
  /** Once aborted, the import stops after the batch in progress commits and is given back. */
  signal?: AbortSignal;
};

export type ImportRunnerDeps = {
  knex: Knex;
  clock: Clock;
  blobs: FileBlobStore;
  consent: ConsentLog;
  properties: ContactPropertyService;
  /** Records per batch (one transaction each). */
  batchSize?: number;
};

/**
 * Records per batch, by measurement (bench:audience, 100,000 rows × 5 properties, 2-core machine):
 * SQLite 12,300 rows/s at 1,000, 14,800 at 2,000, 17,100 at 5,000 (a commit's fsync and WAL work
 * shared by more rows); MariaDB 9,700-10,000 at any of them (its CPU per row is the limit). 2,000
 * keeps a batch's transaction, which on SQLite holds the one writer lock and the event loop, near
 * 0.1 s, and the worker's memory to two batches (one written, the next parsed).
 */
export const BATCH_RECORDS = 2000;

/** A claim not renewed for this long is free again (each batch renews it; a dead process's is taken sooner). */
const LEASE_MS = 5 * 60_000;
type Progress = { rowsDone: number; counts: ImportCounts };

/**
 * Runs imports in the scheduler process: claims one under a lease, then reads its file as a
 * stream, a batch of records at a time, each batch one transaction that writes its contacts,
 * values, topic choices, memberships, consent records and kept failures together with the
 * import's progress (rows done, counts). The progress update is guarded by the claim and by the
 * rows done it started from, so a batch commits once: a restarted or competing worker continues
 * after the last committed batch and never writes a row twice. No contact.* events per row.
 */
export class ContactImportRunner {
  private readonly batchSize: number;

  constructor(private readonly deps: ImportRunnerDeps) {
    this.batchSize = deps.batchSize ?? BATCH_RECORDS;
  }

  /** Claims an open import and runs it; the import as it ended (or was given back), or null when none was free. */
  async runNext(worker: ImportWorker): Promise<ContactImport | null> {
    const claimed = await this.claim(worker);
    if (!claimed) return null;
    await this.run(claimed, worker);
    return (await new ContactImportRepository(this.deps.knex).findById(claimed.id)) ?? null;
  }

  private async claim(worker: ImportWorker): Promise<ContactImport | undefined> {
    const repository = new ContactImportRepository(this.deps.knex);
    const now = this.deps.clock.now();
    for (const candidate of await repository.open(10)) {
      const free =
        candidate.leaseOwner === null ||
        (candidate.leaseUntil?.getTime() ?? 0) <= now.getTime() ||
        (await worker.isDead(candidate.leaseOwner));
      if (!free) continue;
      const until = new Date(now.getTime() + LEASE_MS);
      if (await repository.takeLease(candidate.id, candidate.leaseOwner, worker.owner, until, now))
        return repository.findById(candidate.id);
    }
    return undefined;
  }

  private async run(imp: ContactImport, worker: ImportWorker): Promise<void> {
    const repository = new ContactImportRepository(this.deps.knex);
    const fail = (reason: string) => repository.finish(imp.id, worker.owner, 'failed', reason, this.deps.clock.now());
    const declared = await this.deps.properties.byKey(imp.teamId);
    const changed = imp.plan.properties.find((p) => declared.get(p.key.toLowerCase())?.id !== p.propertyId);
    if (changed) return void (await fail(`the property "${changed.key}" was deleted during the import`));
    const limit = await worker.contactLimit(imp.teamId);
    // Counted once per run: the run's own creations are subtracted as its batches commit.
    const remaining = limit - (await new ContactRepository(this.deps.knex).countForTeam(imp.teamId));
    const source = await this.deps.blobs.openRead(IMPORT_FILES, `${imp.id}.csv`, imp.plan.skipBytes);
    if (!source) return void (await fail('the uploaded file is gone'));
    const batches = csvBatches(source, imp.plan.delimiter, imp.rowsDone, this.batchSize);
    try {
      if (await this.runBatches(imp, worker, batches, { remaining, limit }))
        await repository.finish(imp.id, worker.owner, 'completed', null, this.deps.clock.now());
    } catch (err) {
      if (err instanceof CsvFileError) return void (await fail(err.message));
      throw err; // left claimed: retried when the lease runs out
    } finally {
      await batches.return(undefined);
    }
  }

  /** Commits batch after batch; true at the end of the file, false when stopped or the claim was lost. */
  private async runBatches(
    imp: ContactImport,
    worker: ImportWorker,
    batches: AsyncGenerator<CsvRecord[]>,
    limits: { remaining: number; limit: number },
  ): Promise<boolean> {
    // The next batch is parsed and read while this one is written (the database's time).
    const prepare = () => {
      const prepared = batches
        .next()
        .then(({ value, done }) =>
          done ? null : { records: value, outcomes: value.map((record) => readRow(record, imp.plan)) },
        );
      prepared.catch(() => undefined);
      return prepared;
    };
    let progress: Progress = { rowsDone: imp.rowsDone, counts: imp.counts };
    let remaining = limits.remaining;
    for (let next = prepare(); ;) {
      const batch = await next;
      if (!batch) return true;
      next = prepare();
      const committed = await this.commitBatch(imp, worker.owner, batch, progress, { ...limits, remaining });
      if (!committed) return false; // the claim was lost: whoever holds it now carries on
      remaining -= committed.counts.created - progress.counts.created;
      progress = committed;
      crashPoint('contact-import.after-batch');
      if (worker.signal?.aborted) {
        await new ContactImportRepository(this.deps.knex).release(imp.id, worker.owner);
        return false;
      }
    }
  }

  /** One batch in one transaction, with the progress; null when the claim was lost. Retried on conflicts. */
  private async commitBatch(
    imp: ContactImport,
    owner: string,
    { records, outcomes }: { records: CsvRecord[]; outcomes: RowOutcome[] },
    progress: Progress,
    limits: { remaining: number; limit: number },
  ): Promise<Progress | null> {
    const addresses = [...new Set(outcomes.flatMap((o) => (o.kind === 'contact' ? [o.contact.normalized] : [])))];
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.deps.knex.transaction(async (trx) => {
          const now = this.deps.clock.now();
          const writes = new ImportWritesRepository(trx);
          const existing = await writes.existing(imp.teamId, addresses);
          const batch = decideBatch(outcomes, { teamId: imp.teamId, plan: imp.plan, existing, now, ...limits });
          const next: Progress = {
            rowsDone: progress.rowsDone + records.length,
            counts: added(progress.counts, batch.counts),
          };
          const imports = new ContactImportRepository(trx);
          const until = new Date(now.getTime() + LEASE_MS);
          if (!(await imports.commitProgress(imp.id, owner, progress.rowsDone, next, until, now))) return null;
          const kept = Math.max(0, KEPT_FAILURES - progress.counts.failed);
          await imports.insertFailures(imp.id, imp.teamId, batch.failures.slice(0, kept));
          const consent = batch.consent.flatMap((c) =>
            this.deps.consent.build(c.contact, c.changes, { source: 'import' }),
          );
          await writes.write(imp.teamId, imp.plan, batch, consent, now);
          crashPoint('contact-import.before-commit');
          return next;
        });
      } catch (err) {
        // A concurrent write of the same address or rows (an API create): the batch runs again and sees it.
        if (attempt >= 4 || !(isConflict(err) || isUniqueViolation(err))) throw err;
        await new Promise((resolve) => setTimeout(resolve, 10 * attempt));
      }
    }
  }
}

function added(a: ImportCounts, b: ImportCounts): ImportCounts {
  return {
    total: a.total + b.total,
    created: a.created + b.created,
    updated: a.updated + b.updated,
    skipped: a.skipped + b.skipped,
    failed: a.failed + b.failed,
  };
}
