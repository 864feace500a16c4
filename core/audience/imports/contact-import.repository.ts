import type { Knex } from 'knex';
import { readNullableTimestamp, readTimestamp, rowsPerInsert } from '../../../db/dialect.js';
import { paginateNewestFirst, type PageQuery } from '../../shared/pagination/list-query.js';
import type { FailurePage } from './contact-import.schemas.js';
import type { ContactImport, ImportCounts, ImportFailure, ImportPlan, ImportStatus } from './contact-import.types.js';

type Row = Record<string, unknown>;

const toImport = (row: Row): ContactImport => ({
  id: String(row.id),
  teamId: String(row.team_id),
  apiKeyId: (row.api_key_id as string | null) ?? null,
  status: row.status as ImportStatus,
  fileName: (row.file_name as string | null) ?? null,
  fileSize: Number(row.file_size),
  fileDeletedAt: readNullableTimestamp(row.file_deleted_at),
  plan: JSON.parse(String(row.plan)) as ImportPlan,
  rowsDone: Number(row.rows_done),
  counts: {
    total: Number(row.total),
    created: Number(row.created),
    updated: Number(row.updated),
    skipped: Number(row.skipped),
    failed: Number(row.failed),
  },
  failureReason: (row.failure_reason as string | null) ?? null,
  leaseOwner: (row.lease_owner as string | null) ?? null,
  leaseUntil: readNullableTimestamp(row.lease_until),
  createdAt: readTimestamp(row.created_at),
  startedAt: readNullableTimestamp(row.started_at),
  resumedAt: readNullableTimestamp(row.resumed_at),
  completedAt: readNullableTimestamp(row.completed_at),
  updatedAt: readTimestamp(row.updated_at),
});

const OPEN: ImportStatus[] = ['queued', 'in_progress'];

/** The contact_imports table and the failed rows each import keeps. */
export class ContactImportRepository {
  constructor(private readonly knex: Knex) {}

  async insertMany(imports: ContactImport[]): Promise<void> {
    await this.knex('contact_imports').insert(
      imports.map((i) => ({
        id: i.id,
        team_id: i.teamId,
        api_key_id: i.apiKeyId,
        status: i.status,
        file_name: i.fileName,
        file_size: i.fileSize,
        plan: JSON.stringify(i.plan),
        rows_done: i.rowsDone,
        ...i.counts,
        created_at: i.createdAt,
        updated_at: i.updatedAt,
      })),
    );
  }

  async find(teamId: string, id: string): Promise<ContactImport | undefined> {
    const row = (await this.knex('contact_imports').where({ team_id: teamId, id }).first()) as Row | undefined;
    return row ? toImport(row) : undefined;
  }

  async findById(id: string): Promise<ContactImport | undefined> {
    const row = (await this.knex('contact_imports').where({ id }).first()) as Row | undefined;
    return row ? toImport(row) : undefined;
  }

  async list(teamId: string, page: PageQuery, status?: ImportStatus) {
    const query = this.knex('contact_imports').where({ team_id: teamId });
    if (status) query.where({ status });
    const { rows, hasMore } = await paginateNewestFirst<Row>(query, page);
    return { imports: rows.map(toImport), hasMore };
  }

  /** Kept failures by row, first row first; `after`/`before` are row numbers. */
  async failures(importId: string, page: FailurePage): Promise<{ failures: ImportFailure[]; hasMore: boolean }> {
    const limit = page.limit ?? 20;
    const query = this.knex('contact_import_failures').where({ import_id: importId }).select('row', 'email', 'reason');
    if (page.before !== undefined) query.where('row', '<', page.before).orderBy('row', 'desc');
    else query.where('row', '>', page.after ?? 0).orderBy('row', 'asc');
    const rows = (await query.limit(limit + 1)) as Array<{ row: number; email: string | null; reason: string }>;
    const failures = rows.slice(0, limit).map((r) => ({ row: Number(r.row), email: r.email, reason: r.reason }));
    if (page.before !== undefined) failures.reverse();
    return { failures, hasMore: rows.length > limit };
  }

  async insertFailures(importId: string, teamId: string, failures: ImportFailure[]): Promise<void> {
    const rows = failures.map((f) => ({ import_id: importId, team_id: teamId, ...f }));
    const size = rowsPerInsert(this.knex, 5);
    for (let i = 0; i < rows.length; i += size)
      await this.knex('contact_import_failures').insert(rows.slice(i, i + size));
  }

  /** Queued and interrupted imports, oldest first, with who holds them. */
  async open(limit: number): Promise<Array<Pick<ContactImport, 'id' | 'leaseOwner' | 'leaseUntil'>>> {
    const rows = (await this.knex('contact_imports')
      .whereIn('status', OPEN)
      .orderBy('id')
      .limit(limit)
      .select('id', 'lease_owner', 'lease_until')) as Row[];
    return rows.map((row) => ({
      id: String(row.id),
      leaseOwner: (row.lease_owner as string | null) ?? null,
      leaseUntil: readNullableTimestamp(row.lease_until),
    }));
  }

  /** Takes the import if `previous` still holds it (compare-and-set: one taker wins). */
  async takeLease(id: string, previous: string | null, owner: string, until: Date, now: Date): Promise<boolean> {
    const query = this.knex('contact_imports').where({ id }).whereIn('status', OPEN);
    if (previous === null) query.whereNull('lease_owner');
    else query.where({ lease_owner: previous });
    const taken = await query.update({
      status: 'in_progress',
      lease_owner: owner,
      lease_until: until,
      updated_at: now,
    });
    if (taken !== 1) return false;
    // Started before: an earlier run stopped or died part-way and this one carries on.
    await this.knex('contact_imports').where({ id }).whereNotNull('started_at').update({ resumed_at: now });
    await this.knex('contact_imports').where({ id }).whereNull('started_at').update({ started_at: now });
    return true;
  }

  /**
   * Records a batch's progress in the batch's transaction, only if `owner` still holds the
   * import and nobody committed past `from` meanwhile: false means the batch must roll back.
   */
  async commitProgress(
    id: string,
    owner: string,
    from: number,
    progress: { rowsDone: number; counts: ImportCounts },
    leaseUntil: Date,
    now: Date,
  ): Promise<boolean> {
    const updated = await this.knex('contact_imports')
      .where({ id, lease_owner: owner, rows_done: from })
      .update({ rows_done: progress.rowsDone, ...progress.counts, lease_until: leaseUntil, updated_at: now });
    return updated === 1;
  }

  async finish(id: string, owner: string, status: ImportStatus, reason: string | null, now: Date): Promise<boolean> {
    const updated = await this.knex('contact_imports')
      .where({ id, lease_owner: owner })
      .update({
        status,
        failure_reason: reason?.slice(0, 500) ?? null,
        completed_at: now,
        lease_owner: null,
        lease_until: null,
        updated_at: now,
      });
    return updated === 1;
  }

  /** Gives the import back (a worker stopping between batches): the next claim resumes it at once. */
  async release(id: string, owner: string): Promise<void> {
    await this.knex('contact_imports')
      .where({ id, lease_owner: owner })
      .update({ lease_owner: null, lease_until: null });
  }

  /** Finished imports whose file is still kept although they finished before `cutoff`. */
  async filesDue(cutoff: Date, limit: number): Promise<string[]> {
    return (await this.knex('contact_imports')
      .whereIn('status', ['completed', 'failed'])
      .where('completed_at', '<', cutoff)
      .whereNull('file_deleted_at')
      .orderBy('completed_at')
      .limit(limit)
      .pluck('id')) as string[];
  }

  /** The file is gone: so are the failed rows copied from it; the counts stay. */
  async markFileDeleted(id: string, now: Date): Promise<void> {
    await this.knex('contact_import_failures').where({ import_id: id }).delete();
    await this.knex('contact_imports').where({ id }).update({ file_deleted_at: now });
  }
}
