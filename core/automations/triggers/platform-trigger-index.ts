import type { Knex } from 'knex';
import { AutomationRepository } from '../automation.repository.js';

/** One enabled automation's platform trigger: the event, and the segment or topic it names. */
export type PlatformBinding = { event: string; subjectId: string | null };

/**
 * Which teams have an enabled automation on which platform trigger (svc:...), kept for
 * `ttlMs`: every recorded event asks it, so the common answer ("none") costs no query. This
 * process forgets it at once when it changes an automation; other processes within the TTL
 * (config automations.triggerCacheMs).
 */
export class PlatformTriggerIndex {
  private loaded: { at: number; byTeam: Map<string, PlatformBinding[]> } | null = null;

  constructor(private readonly ttlMs: number) {}

  forget(): void {
    this.loaded = null;
  }

  /** The team's bindings, read on `knex` when stale (the caller's transaction: its connection is the one it holds). */
  async of(knex: Knex, teamId: string): Promise<PlatformBinding[]> {
    return (await this.all(knex)).get(teamId) ?? [];
  }

  /** Every team's bindings. */
  async all(knex: Knex): Promise<Map<string, PlatformBinding[]>> {
    if (this.loaded && Date.now() - this.loaded.at < this.ttlMs) return this.loaded.byTeam;
    const byTeam = new Map<string, PlatformBinding[]>();
    for (const row of await new AutomationRepository(knex).platformTriggerBindings()) {
      const list = byTeam.get(row.teamId) ?? [];
      list.push({ event: row.event, subjectId: row.subjectId });
      byTeam.set(row.teamId, list);
    }
    this.loaded = { at: Date.now(), byTeam };
    return byTeam;
  }
}

/** Whether a binding fires for an occurrence of `event` about `subjectId` (a segment or topic). */
export const bindingFires = (binding: PlatformBinding, event: string, subjectId: string | null): boolean =>
  binding.event === event && (binding.subjectId === null || binding.subjectId === subjectId);
