import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';
import { newId } from '../../../lib/ids.js';
import { EventOccurrenceRepository, type StoredOccurrence } from '../../custom-events/event-occurrence.repository.js';
import type { EventLog } from '../../events/log/event-log.js';
import type { EventType } from '../../events/log/event.types.js';
import type { TeamService } from '../../platform/teams/team.service.js';
import { AutomationRepository } from '../automation.repository.js';
import type { AutomationVersion } from '../automation.types.js';
import { AutomationRunRepository } from './automation-run.repository.js';
import type { AutomationRun } from './automation-run.types.js';
import { successor } from './graph-walk.js';
import { RunLimit } from './run-limit.js';
import { runEventData } from './run-transitions.js';

export type RunEnrolmentDeps = {
  knex: Knex;
  clock: Clock;
  events: Pick<EventLog, 'recordMany'>;
  leaseMs: number;
  /** A claim token unique to this call. */
  token: () => string;
  /** Each team's plan (its monthly run limit). */
  teams: Pick<TeamService, 'get'>;
};

/** Occurrences claimed per transaction. */
export const ENROL_BATCH = 100;

/**
 * Whether a version's trigger fires for an occurrence: the same event name, and for a custom
 * event the definition the version was published against (a definition deleted and created
 * again under the name is another one: "an automation version still naming it never fires");
 * for a platform event, the segment or topic the trigger names, if it names one.
 */
export function triggerFires(version: Pick<AutomationVersion, 'trigger'>, occurrence: StoredOccurrence): boolean {
  const trigger = version.trigger;
  if (trigger.event !== occurrence.eventName) return false;
  if (occurrence.definitionId !== null)
    return trigger.definitionId === null || trigger.definitionId === occurrence.definitionId;
  const subject = occurrence.payload.segment_id ?? occurrence.payload.topic_id;
  return trigger.subjectId === null || trigger.subjectId === subject;
}

/**
 * Enrolment: claims a batch of unprocessed occurrences (sent custom events, platform events)
 * and creates one run per occurrence and enabled automation whose active version's trigger
 * fires for it, pinned to that version, with its trigger step completed and
 * automation.run.started, all in one transaction with the occurrences marked processed. A
 * redelivered occurrence (a lease that ran out mid-way) finds its runs there already.
 */
export class RunEnrolment {
  constructor(private readonly deps: RunEnrolmentDeps) {}

  async enrol(): Promise<{ occurrences: number; runs: number }> {
    const { knex } = this.deps;
    const now = this.deps.clock.now();
    const occurrences = await new EventOccurrenceRepository(knex).claim(
      this.deps.token(),
      now,
      new Date(now.getTime() + this.deps.leaseMs),
      ENROL_BATCH,
    );
    if (occurrences.length === 0) return { occurrences: 0, runs: 0 };
    const candidates = await new AutomationRepository(knex).enabledTriggeredBy(
      [...new Set(occurrences.map((o) => o.teamId))],
      [...new Set(occurrences.map((o) => o.eventName))],
    );
    const living = await this.livingContacts(occurrences);
    const automationEmails = await this.automationEmails(occurrences);
    const runs: Array<{ run: AutomationRun; triggerKey: string }> = [];
    for (const occurrence of occurrences) {
      if (!living.has(occurrence.contactId)) continue; // erased since: the event is dropped
      // An automation's own emails start nothing (a trigger on email.sent that sends would feed itself).
      if (automationEmails.has(String(occurrence.payload.email_id))) continue;
      for (const { automation, version } of candidates) {
        if (automation.teamId !== occurrence.teamId || !triggerFires(version, occurrence)) continue;
        const trigger = version.steps.find((s) => s.type === 'trigger');
        if (!trigger) continue;
        runs.push({
          triggerKey: trigger.key,
          run: {
            id: newId(),
            teamId: occurrence.teamId,
            automationId: automation.id,
            versionId: version.id,
            contactId: occurrence.contactId,
            occurrenceId: occurrence.id,
            status: 'running',
            nextStepKey: successor(version, trigger.key),
            wakeAt: now,
            error: null,
            attempts: 0,
            leaseOwner: null,
            createdAt: now,
            updatedAt: now,
            endedAt: null,
          },
        });
      }
    }
    // Past the plan's monthly run limit a run is recorded as failed, never started (run-limit.ts).
    await new RunLimit({ knex, teams: this.deps.teams }).refuseOverLimit(
      runs.map((r) => r.run),
      now,
    );
    let created = 0;
    await knex.transaction(async (trx) => {
      const repository = new AutomationRunRepository(trx);
      const inserted = new Set(await repository.insertIgnoringDuplicates(runs.map((r) => r.run)));
      const fresh = runs.filter(({ run }) => inserted.has(run.id));
      created = fresh.length;
      await repository.insertSteps(
        fresh.map(({ run, triggerKey }) => ({
          runId: run.id,
          stepKey: triggerKey,
          status: run.status === 'failed' ? ('failed' as const) : ('completed' as const),
          startedAt: now,
          endedAt: now,
          error: run.error,
          emailId: null,
        })),
      );
      if (fresh.length > 0)
        await this.deps.events.recordMany(
          trx,
          fresh.map(({ run }) =>
            run.status === 'failed'
              ? {
                  teamId: run.teamId,
                  type: 'automation.run.failed' as EventType,
                  data: runEventData(run, 'failed', run.error),
                }
              : {
                  teamId: run.teamId,
                  type: 'automation.run.started' as EventType,
                  data: runEventData(run, 'running'),
                },
          ),
        );
      await new EventOccurrenceRepository(trx).markProcessed(
        occurrences.map((o) => o.id),
        now,
      );
    });
    return { occurrences: occurrences.length, runs: created };
  }

  private async livingContacts(occurrences: StoredOccurrence[]): Promise<Set<string>> {
    const ids = [...new Set(occurrences.map((o) => o.contactId))];
    const rows = (await this.deps.knex('contacts').whereIn('id', ids).select('id')) as Array<{ id: string }>;
    return new Set(rows.map((r) => r.id));
  }

  /** The email ids among svc:email.* occurrences that an automation's send step sent. */
  private async automationEmails(occurrences: StoredOccurrence[]): Promise<Set<string>> {
    const ids = [
      ...new Set(
        occurrences
          .filter((o) => o.definitionId === null && typeof o.payload.email_id === 'string')
          .map((o) => o.payload.email_id as string),
      ),
    ];
    if (ids.length === 0) return new Set();
    const sent = (await this.deps.knex('automation_run_steps').whereIn('email_id', ids).pluck('email_id')) as string[];
    return new Set(sent);
  }
}
