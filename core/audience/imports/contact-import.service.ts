import type { Knex } from 'knex';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { FileBlobStore } from '../../../lib/blob-store.js';
import type { Clock } from '../../../lib/clock.js';
import { InvalidParameterError, NotFoundError } from '../../../lib/errors.js';
import { isUuid, newId } from '../../../lib/ids.js';
import type { PageQuery } from '../../shared/pagination/list-query.js';
import type { ContactPropertyService } from '../properties/contact-property.service.js';
import { SegmentMemberRepository } from '../segments/segment-member.repository.js';
import type { TopicService } from '../topics/topic.service.js';
import { resolveColumns } from './column-plan.js';
import { ContactImportRepository } from './contact-import.repository.js';
import { readImportOptions, type FailurePage, type ImportFields } from './contact-import.schemas.js';
import {
  IMPORT_FILE_RETENTION_DAYS,
  IMPORT_FILES,
  NO_COUNTS,
  type ContactImport,
  type ImportPlan,
  type ImportStatus,
} from './contact-import.types.js';
import { CsvFileError, readCsvLayout } from './csv-source.js';

/** An uploaded file, already on disk in the blob store's incoming directory. */
export type ImportUpload = { path: string; filename: string | null; size: number };

/**
 * Contact imports on the API side: an upload is checked (options, segments, topics, and the
 * file's header against the column map) and refused at once if anything is wrong; otherwise its
 * file becomes a blob and the import is queued, in the request's unit of work, for the
 * scheduler's worker (ContactImportRunner). Also the reads, and the deletion of files seven
 * days after an import finished.
 */
export class ContactImportService {
  constructor(
    private readonly deps: {
      knex: Knex;
      clock: Clock;
      blobs: FileBlobStore;
      properties: ContactPropertyService;
      topics: TopicService;
    },
  ) {}

  /** Where uploads are streamed: beside the blobs, so keeping one is a rename. */
  get uploadDirectory(): string {
    return this.deps.blobs.incomingDirectory;
  }

  async create(
    teamId: string,
    apiKeyId: string | null,
    file: ImportUpload,
    fields: ImportFields,
    unit: UnitOfWork,
  ): Promise<ContactImport> {
    const options = readImportOptions(fields);
    await this.deps.topics.requireAll(
      teamId,
      options.topics.map((t) => t.id),
      'topics',
    );
    await this.requireSegments(teamId, options.segmentIds);
    const layout = await readCsvLayout(file.path).catch((err: unknown) => {
      if (err instanceof CsvFileError) throw fileRefused(err.message);
      throw err;
    });
    if (!layout) throw fileRefused('the file is empty: its first row must name the columns');
    const plan: ImportPlan = {
      skipBytes: layout.skipBytes,
      delimiter: layout.delimiter,
      ...resolveColumns(layout.header, options.columnMap, await this.deps.properties.byKey(teamId)),
      onConflict: options.onConflict,
      segmentIds: [...new Set(options.segmentIds)],
      // The last choice for a topic named twice wins, as for POST /contacts.
      topics: [...new Map(options.topics.map((t) => [t.id.toLowerCase(), t.subscription]))].map(([id, s]) => ({
        id,
        subscription: s,
      })),
    };
    const now = this.deps.clock.now();
    const imp: ContactImport = {
      id: newId(),
      teamId,
      apiKeyId,
      status: 'queued',
      fileName: file.filename?.slice(0, 255) ?? null,
      fileSize: file.size,
      fileDeletedAt: null,
      plan,
      rowsDone: 0,
      counts: { ...NO_COUNTS },
      failureReason: null,
      leaseOwner: null,
      leaseUntil: null,
      createdAt: now,
      startedAt: null,
      resumedAt: null,
      completedAt: null,
      updatedAt: now,
    };
    // Durable before the row commits with the request: a queued import always has its file.
    await this.deps.blobs.adopt(IMPORT_FILES, `${imp.id}.csv`, file.path);
    unit.write('contact_imports', imp, (trx, imports: ContactImport[]) =>
      new ContactImportRepository(trx).insertMany(imports),
    );
    return imp;
  }

  async get(teamId: string, id: string): Promise<ContactImport> {
    const found = isUuid(id)
      ? await new ContactImportRepository(this.deps.knex).find(teamId, id.toLowerCase())
      : undefined;
    if (!found) throw new NotFoundError('Contact import not found');
    return found;
  }

  list(teamId: string, page: PageQuery & { status?: ImportStatus }) {
    return new ContactImportRepository(this.deps.knex).list(teamId, page, page.status);
  }

  async failures(teamId: string, id: string, page: FailurePage) {
    const imp = await this.get(teamId, id);
    return new ContactImportRepository(this.deps.knex).failures(imp.id, page);
  }

  /**
   * Deletes the files of imports finished more than seven days ago (the counts stay; the kept
   * failures, copies of the file's rows, go with it), and uploads abandoned a day ago.
   */
  async purgeFiles(batch = 100): Promise<{ import_files: number; abandoned_uploads: number }> {
    const now = this.deps.clock.now();
    const repository = new ContactImportRepository(this.deps.knex);
    const cutoff = new Date(now.getTime() - IMPORT_FILE_RETENTION_DAYS * 86_400_000);
    let files = 0;
    for (;;) {
      const due = await repository.filesDue(cutoff, batch);
      for (const id of due) {
        await this.deps.blobs.delete(IMPORT_FILES, `${id}.csv`);
        await repository.markFileDeleted(id, now);
      }
      files += due.length;
      if (due.length < batch) break;
    }
    const abandoned = await this.deps.blobs.removeStaleIncoming(new Date(Date.now() - 86_400_000));
    return { import_files: files, abandoned_uploads: abandoned };
  }

  private async requireSegments(teamId: string, ids: string[]): Promise<void> {
    const live = await new SegmentMemberRepository(this.deps.knex).liveSegmentIds(teamId, ids);
    const missing = ids.flatMap((id, index) => (live.has(id) ? [] : [{ path: `segments[${index}].id`, id }]));
    if (missing.length > 0)
      throw new InvalidParameterError(`Unknown segment: ${missing.map((m) => m.id).join(', ')}`, {
        errors: missing.map((m) => ({ path: m.path, message: 'no such segment' })),
      });
  }
}

const fileRefused = (message: string) =>
  new InvalidParameterError(`The file cannot be imported: ${message}`, { errors: [{ path: 'file', message }] });
