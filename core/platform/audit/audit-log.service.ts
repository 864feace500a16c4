import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';
import { NotFoundError } from '../../../lib/errors.js';
import { newId } from '../../../lib/ids.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import { cleanAuditMetadata } from './audit-metadata.js';
import { purgeByPlanRetention } from '../retention/plan-retention.js';
import { AuditRepository } from './audit.repository.js';
import type { ListAuditQuery } from './audit.schemas.js';
import type { AuditActor, AuditEntry, AuditEvent, AuditOrigin } from './audit.types.js';

/** An event with the team and actor it belongs to: what record() and stage() take. */
export type AuditRecord = AuditEvent & { teamId: string; actor: AuditActor };

/** What another group needs to append an entry (it never reads the log). */
export type AuditRecorder = Pick<AuditLogService, 'record'>;

const NO_ORIGIN: AuditOrigin = { ip: null, userAgent: null };
const insertEntries = (trx: Knex, entries: AuditEntry[]) => new AuditRepository(trx).insertMany(entries);

/**
 * The audit log. Entries are appended, either in the request's unit of work (so the entry commits
 * in the same transaction as the change it records, or not at all) or on their own for work done
 * outside a request. Nothing updates an entry; retention deletes them after the plan's period.
 */
export class AuditLogService {
  private readonly entries: AuditRepository;

  constructor(private readonly deps: { knex: Knex; clock: Clock }) {
    this.entries = new AuditRepository(deps.knex);
  }

  /** Stages the entry in `unit`; it commits with the unit's other writes. */
  stage(unit: UnitOfWork, record: AuditRecord, origin: AuditOrigin = NO_ORIGIN): string {
    const entry = this.entryOf(record, origin);
    unit.write('audit_log_entries', entry, insertEntries);
    return entry.id;
  }

  /**
   * Writes the entry now, in `trx` when given (work outside a request's unit: sign-ins, the
   * scheduler, provider webhooks), so it commits with the change it records.
   */
  async record(record: AuditRecord, origin: AuditOrigin = NO_ORIGIN, trx?: Knex): Promise<string> {
    const entry = this.entryOf(record, origin);
    await (trx ? new AuditRepository(trx) : this.entries).insertMany([entry]);
    return entry.id;
  }

  /** A newest-first page of one team's entries, or (no `teamId`: the admin API) of every team's. */
  async list(query: ListAuditQuery, teamId?: string): Promise<{ entries: AuditEntry[]; hasMore: boolean }> {
    return this.entries.list(query, teamId);
  }

  /** One entry, of `teamId` when given (another team's answers like a missing one). */
  async get(id: string, teamId?: string): Promise<AuditEntry> {
    const entry = await this.entries.find(id, teamId);
    if (!entry) throw new NotFoundError('Audit log entry not found');
    return entry;
  }

  /** Deletes entries older than each team's plan keeps its audit log (the retention job). */
  async purgeExpired(batch = 1000): Promise<number> {
    return purgeByPlanRetention(
      this.deps.knex,
      'audit_log_entries',
      this.deps.clock.now(),
      batch,
      [],
      (plan) => plan.limits.audit_retention_days,
    );
  }

  private entryOf(record: AuditRecord, origin: AuditOrigin): AuditEntry {
    return {
      id: newId(),
      teamId: record.teamId,
      action: record.action,
      actor: record.actor,
      resource: record.resource,
      metadata: cleanAuditMetadata(record.metadata),
      ip: origin.ip,
      userAgent: origin.userAgent,
      createdAt: this.deps.clock.now(),
    };
  }
}
