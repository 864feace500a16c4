import type { UnitOfWork, UnitsOfWork } from '../../../db/unit-of-work.js';
import { crashPoint } from '../../../lib/crash-point.js';
import type { ContactService } from '../../audience/contacts/contact.service.js';
import type { TeamService } from '../../platform/teams/team.service.js';
import type { EmailAcceptance } from '../../sending/emails/email-acceptance.js';
import { sendEmailSchema } from '../../sending/emails/email.schemas.js';
import { successor } from './graph-walk.js';
import { stepDone, type RunTransitions, type Transition } from './run-transitions.js';
import type { StepAtHand } from './step-executor.js';

export type SendEmailStepDeps = {
  units: UnitsOfWork;
  teams: Pick<TeamService, 'get'>;
  emails: Pick<EmailAcceptance, 'acceptForAutomation'>;
  contacts: Pick<ContactService, 'find' | 'topicsOf'>;
  transitions: RunTransitions;
  /** The contact's signed one-click unsubscribe URL (List-Unsubscribe, RFC 8058). */
  unsubscribeUrl: (contactId: string) => string;
};

/** What a send step did. */
export type SendResult =
  /** Committed: the email (or the skip) with the step row and the run's move. */
  | { kind: 'committed'; next: string | null }
  /** The email was refused before anything was written: the run fails with this. */
  | { kind: 'fail'; error: string }
  /** The run was cancelled meanwhile: nothing was written. */
  | { kind: 'stop' };

/** Thrown inside a send's unit of work when the run was cancelled meanwhile: nothing commits. */
class RunNotRunning extends Error {
  constructor(runId: string) {
    super(`automation run ${runId} is no longer running`);
  }
}

/**
 * send_email: the email goes through the ordinary acceptance path (quota, suppressions, the
 * template, email.* events) with List-Unsubscribe and List-Unsubscribe-Post for the contact,
 * and the step row naming it plus the run's move commit in the email's own unit of work: a
 * retry finds the email id on the row and never sends twice. A contact who unsubscribed (or
 * opted out of the step's topic) is skipped: the step is `skipped`, the run goes on.
 */
export class SendEmailStep {
  constructor(private readonly deps: SendEmailStepDeps) {}

  async run(at: StepAtHand): Promise<SendResult> {
    const { run, version, step, now } = at;
    const c = step.config;
    const next = successor(version, step.key);
    const contact = await this.deps.contacts.find(run.teamId, run.contactId);
    const skipped = await this.skipReason(run.teamId, contact, c.topic_id);
    if (skipped) {
      const unit = this.deps.units.begin();
      return this.commit(unit, stepDone(run, step.key, now, next, now, { skipped }));
    }
    const parsed = sendEmailSchema.safeParse({
      to: [contact.email],
      template: c.template,
      ...(c.subject ? { subject: c.subject } : {}),
      ...(c.from ? { from: c.from } : {}),
      ...(c.reply_to ? { reply_to: c.reply_to } : {}),
      ...(c.topic_id ? { topic_id: c.topic_id } : {}),
    });
    if (!parsed.success)
      return { kind: 'fail', error: `the email is not valid: ${parsed.error.issues[0]?.message ?? 'invalid'}` };
    const team = await this.deps.teams.get(run.teamId);
    const unit: UnitOfWork = this.deps.units.begin();
    // The appliance's own headers, set after validation (a caller may not set them).
    const headers = {
      'List-Unsubscribe': `<${this.deps.unsubscribeUrl(contact.id)}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    };
    const email = await this.deps.emails.acceptForAutomation(team, { ...parsed.data, headers }, unit);
    crashPoint('automation.before-send-commit');
    const result = await this.commit(unit, stepDone(run, step.key, now, next, now, { emailId: email.id }));
    if (result.kind === 'committed') crashPoint('automation.after-send-commit');
    return result;
  }

  private async skipReason(
    teamId: string,
    contact: { id: string; unsubscribed: boolean },
    topicId: unknown,
  ): Promise<string | undefined> {
    if (contact.unsubscribed) return 'the contact has unsubscribed';
    if (typeof topicId !== 'string') return undefined;
    const topics = await this.deps.contacts.topicsOf(teamId, contact.id);
    const choice = topics.find((t) => t.topic.id === topicId.toLowerCase());
    return choice?.subscription === 'opt_out' ? 'the contact opted out of the topic' : undefined;
  }

  private async commit(unit: UnitOfWork, transition: Transition): Promise<SendResult> {
    unit.write('automation_run_transitions', transition, async (trx, transitions: Transition[]) => {
      // A run cancelled meanwhile: the email is rolled back with it (a failed item fails alone).
      for (const t of transitions) if (!(await this.deps.transitions.commit(trx, t))) throw new RunNotRunning(t.run.id);
    });
    try {
      await unit.commit();
    } catch (err) {
      if (err instanceof RunNotRunning) return { kind: 'stop' };
      throw err;
    }
    return { kind: 'committed', next: transition.nextStepKey };
  }
}
