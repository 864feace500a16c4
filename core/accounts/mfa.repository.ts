import type { Knex } from 'knex';
import { readJson, readNullableTimestamp, writeJson } from '../../db/dialect.js';

export type MfaRow = {
  secretSealed: string;
  enabledAt: Date | null;
  lastUsedStep: number | null;
  /** SHA-256 (hex) of each unused recovery code. */
  recoveryCodes: string[];
};

/** The user_mfa table, one row per user who started enrolling. */
export class MfaRepository {
  constructor(private readonly knex: Knex) {}

  async find(userId: string): Promise<MfaRow | undefined> {
    const row = await this.knex('user_mfa').where({ user_id: userId }).first();
    if (!row) return undefined;
    return {
      secretSealed: String(row.secret_sealed),
      enabledAt: readNullableTimestamp(row.enabled_at),
      lastUsedStep: row.last_used_step === null ? null : Number(row.last_used_step),
      recoveryCodes: readJson<string[]>(row.recovery_codes, []),
    };
  }

  /** Starts (or restarts) enrolment with a new secret. */
  async startEnrolment(userId: string, secretSealed: string, now: Date): Promise<void> {
    await this.knex('user_mfa').where({ user_id: userId }).delete();
    await this.knex('user_mfa').insert({ user_id: userId, secret_sealed: secretSealed, created_at: now });
  }

  /** Turns MFA on, unless it already is (false then). */
  async enable(userId: string, step: number, recoveryCodes: string[], now: Date): Promise<boolean> {
    const updated = await this.knex('user_mfa')
      .where({ user_id: userId })
      .whereNull('enabled_at')
      .update({ enabled_at: now, last_used_step: step, recovery_codes: writeJson(recoveryCodes) });
    await this.knex('team_members').where({ user_id: userId }).update({ mfa_enabled: true });
    return updated === 1;
  }

  /** Records a used time step; false when it (or a later one) was used already: a replay. */
  async useStep(userId: string, step: number): Promise<boolean> {
    const updated = await this.knex('user_mfa')
      .where({ user_id: userId })
      .where((q) => q.whereNull('last_used_step').orWhere('last_used_step', '<', step))
      .update({ last_used_step: step });
    return updated === 1;
  }

  /** Removes one recovery code; false when another request took it first. */
  async useRecoveryCode(userId: string, before: string[], codeHash: string): Promise<boolean> {
    const after = before.filter((hash) => hash !== codeHash);
    const updated = await this.knex('user_mfa')
      .where({ user_id: userId, recovery_codes: writeJson(before) })
      .update({ recovery_codes: writeJson(after) });
    return updated === 1;
  }

  async remove(userId: string): Promise<void> {
    await this.knex('user_mfa').where({ user_id: userId }).delete();
    await this.knex('team_members').where({ user_id: userId }).update({ mfa_enabled: false });
  }
}
