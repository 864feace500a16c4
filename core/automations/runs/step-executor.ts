import type { Knex } from 'knex';
import { AppError, NotFoundError } from '../../../lib/errors.js';
import type { ContactService } from '../../audience/contacts/contact.service.js';
import { applySegmentFilter, type SegmentFilterContext } from '../../audience/segments/segment-filter.js';
import type { AutomationStep, AutomationVersion } from '../automation.types.js';
import { checkCondition } from '../condition-rules.js';
import type { AutomationRun, AutomationRunStep } from './automation-run.types.js';
import { delayUntil, successor } from './graph-walk.js';

/** What executing one step decided. */
export type Outcome =
  { kind: 'next'; next: string | null } | { kind: 'park'; until: Date } | { kind: 'fail'; error: string };

/** A step the engine is about to execute, with what it read before opening the transaction. */
export type StepAtHand = {
  run: AutomationRun;
  version: AutomationVersion;
  step: AutomationStep;
  /** The step's row from an earlier attempt (a parked delay, a send whose email committed). */
  existing: AutomationRunStep | undefined;
  now: Date;
  /** The team's properties and topics, for a condition (read outside the transaction). */
  catalog?: SegmentFilterContext;
};

export type StepExecutorDeps = {
  contacts: Pick<ContactService, 'find' | 'updateWithin' | 'setTopicsWithin' | 'addToSegmentWithin'>;
};

/**
 * Executes every step but send_email inside the transaction that writes its transition, with
 * the run locked: a step's effect (a contact updated, a segment joined, a topic chosen) commits
 * with the row saying it happened, or neither does. A refusal (AppError: a property gone, a
 * segment deleted) is the step's failure; the caller rolls the transaction back and fails the run.
 */
export class StepExecutor {
  constructor(private readonly deps: StepExecutorDeps) {}

  async execute(trx: Knex.Transaction, at: StepAtHand): Promise<Outcome> {
    const { run, version, step, existing, now } = at;
    const next = () => successor(version, step.key);
    try {
      await this.deps.contacts.find(run.teamId, run.contactId, trx);
    } catch (err) {
      if (err instanceof NotFoundError) return { kind: 'fail', error: 'the contact no longer exists' };
      throw err;
    }
    const c = step.config;
    switch (step.type) {
      case 'trigger':
        return { kind: 'next', next: next() };
      case 'delay': {
        if (existing?.status === 'waiting') return { kind: 'next', next: next() };
        const until = delayUntil(c, now);
        if (!until) return { kind: 'fail', error: 'the delay has neither a valid duration nor until' };
        return until.getTime() > now.getTime() ? { kind: 'park', until } : { kind: 'next', next: next() };
      }
      case 'condition': {
        const check = checkCondition(c, at.catalog!);
        if (!check.ok) return { kind: 'fail', error: `the condition is no longer valid: ${check.problems[0]}` };
        const query = trx('contacts as c').where('c.id', run.contactId).where('c.team_id', run.teamId);
        applySegmentFilter(query, check.filter, at.catalog!, 'c');
        const met = Boolean(await query.first('c.id'));
        return { kind: 'next', next: successor(version, step.key, met ? 'condition_met' : 'condition_not_met') };
      }
      case 'contact_update':
        await this.deps.contacts.updateWithin(
          trx,
          run.teamId,
          run.contactId,
          {
            ...(c.first_name !== undefined ? { first_name: c.first_name as string } : {}),
            ...(c.last_name !== undefined ? { last_name: c.last_name as string } : {}),
            ...(c.unsubscribed !== undefined ? { unsubscribed: c.unsubscribed as boolean } : {}),
            ...(c.properties !== undefined
              ? { properties: c.properties as Record<string, string | number | null> }
              : {}),
          },
          { source: 'automation' },
        );
        return { kind: 'next', next: next() };
      case 'add_to_segment':
        await this.deps.contacts.addToSegmentWithin(trx, run.teamId, run.contactId, String(c.segment_id));
        return { kind: 'next', next: next() };
      case 'topic_update':
        await this.deps.contacts.setTopicsWithin(
          trx,
          run.teamId,
          run.contactId,
          [{ id: String(c.topic_id), subscription: c.subscription as 'opt_in' | 'opt_out' }],
          { source: 'automation' },
        );
        return { kind: 'next', next: next() };
      case 'send_email':
        throw new Error('send_email steps go through SendEmailStep');
    }
  }
}

/** A refusal from a step's effect: the run fails with its message; anything else is unexpected. */
export const refusalMessage = (err: unknown): string | undefined => (err instanceof AppError ? err.message : undefined);
