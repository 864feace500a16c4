import type { Knex } from 'knex';
import { readJson, readTimestamp } from '../../db/dialect.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import { purgeByPlanRetention } from '../platform/retention/plan-retention.js';
import type { DiagnosisCause, StoredDiagnosis } from './ai.types.js';

type DiagnosisRow = {
  id: string;
  team_id: string;
  email_id: string;
  state_hash: string;
  summary: string;
  likely_causes: string;
  next_steps: string;
  cause: string | null;
  created_at: unknown;
};

const toDiagnosis = (row: DiagnosisRow): StoredDiagnosis => ({
  id: row.id,
  teamId: row.team_id,
  emailId: row.email_id,
  stateHash: row.state_hash,
  summary: row.summary,
  likelyCauses: readJson<string[]>(row.likely_causes, []),
  nextSteps: readJson<string[]>(row.next_steps, []),
  cause: (row.cause as DiagnosisCause) ?? null,
  createdAt: readTimestamp(row.created_at),
});

/** Stored diagnoses (table ai_diagnoses): one per email and state of the email. */
export class DiagnosisRepository {
  constructor(private readonly knex: Knex) {}

  async find(teamId: string, emailId: string, stateHash: string): Promise<StoredDiagnosis | undefined> {
    const row = (await this.knex('ai_diagnoses')
      .where({ team_id: teamId, email_id: emailId, state_hash: stateHash })
      .first()) as DiagnosisRow | undefined;
    return row ? toDiagnosis(row) : undefined;
  }

  /**
   * Adds the diagnosis to `unit` (it commits with the request, and with the credit it cost). Two
   * requests that raced on the same state both made one; the first stored wins, the other is
   * dropped rather than failing its request.
   */
  addWithin(unit: UnitOfWork, diagnosis: StoredDiagnosis): void {
    const row = {
      id: diagnosis.id,
      team_id: diagnosis.teamId,
      email_id: diagnosis.emailId,
      state_hash: diagnosis.stateHash,
      summary: diagnosis.summary,
      likely_causes: JSON.stringify(diagnosis.likelyCauses),
      next_steps: JSON.stringify(diagnosis.nextSteps),
      cause: diagnosis.cause,
      created_at: diagnosis.createdAt,
    };
    unit.write('ai_diagnoses', row, async (trx, rows) => {
      await trx('ai_diagnoses').insert(rows).onConflict(['email_id', 'state_hash']).ignore();
    });
  }

  /** Diagnoses older than their team's plan retention (the emails they are about are gone by then). */
  purgeExpired(now: Date): Promise<number> {
    return purgeByPlanRetention(this.knex, 'ai_diagnoses', now);
  }
}
