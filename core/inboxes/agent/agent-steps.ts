import type { UnitsOfWork } from '../../../db/unit-of-work.js';
import { AppError } from '../../../lib/errors.js';
import { parseMailbox } from '../../shared/addresses/mailbox.js';
import type { Team } from '../../platform/teams/team.types.js';
import type { InboxDraftService } from '../inbox-draft.service.js';
import type { InboxSending } from '../inbox-sending.js';
import { MAX_LABELS_PER_CALL, type InboxThreadService } from '../inbox-thread.service.js';
import type { Inbox, InboxLabel } from '../inbox.types.js';
import { FOLDER_OF, isAgentAction, type PlannedStep } from './agent-plan.js';

/** What became of one step: recorded on the thread as `detail` (with the action and the reason). */
export type StepOutcome =
  | { outcome: 'applied'; [key: string]: unknown }
  | { outcome: 'refused'; refusal: Refusal; message: string; [key: string]: unknown }
  | { outcome: 'failed'; error: string };

/** not_enabled: the inbox's settings do not allow it; invalid_target: a label, member or address it may not use. */
export type Refusal = 'unknown_action' | 'not_enabled' | 'invalid_target' | 'missing_field' | 'duplicate';

/** One thread's run: what the steps need, and what earlier steps did (one folder move, no repeats). */
export type RunContext = {
  inbox: Inbox;
  team: Team;
  threadId: string;
  /** The thread's first email: what a draft answers and a forward sends on. */
  emailId: string;
  labels: InboxLabel[];
  forwardable: Set<string>;
  done: Set<string>;
  folderMoved: boolean;
};

const refused = (refusal: Refusal, message: string, extra: Record<string, unknown> = {}): StepOutcome => ({
  outcome: 'refused',
  refusal,
  message,
  ...extra,
});

/**
 * Applies the agent's steps through the same services a person's requests use, with source
 * 'agent': each change is checked (a member, a label of this inbox) and sends its inbox.* event.
 * Every step answers one or two outcomes to record; none throws.
 */
export class AgentSteps<C> {
  constructor(
    private readonly deps: {
      threads: InboxThreadService;
      drafts: InboxDraftService<C>;
      sending: InboxSending<C>;
      units: UnitsOfWork;
      systemCaller: (team: Team) => C;
    },
  ) {}

  async apply(run: RunContext, step: PlannedStep): Promise<StepOutcome[]> {
    const { action } = step;
    if (!isAgentAction(action)) return [refused('unknown_action', `${action} is not an action of the inbox agent`)];
    if (!run.inbox.agent.actions.includes(action))
      return [refused('not_enabled', `${action} is not enabled for this inbox`)];
    if (run.done.has(action)) return [refused('duplicate', `${action} was already applied to this thread`)];
    if (action in FOLDER_OF && run.folderMoved)
      return [refused('duplicate', 'the thread was already moved to another folder by this run')];
    try {
      const outcomes = await this.applyEnabled(run, step);
      if (outcomes.some((one) => one.outcome === 'applied')) {
        run.done.add(action);
        if (action in FOLDER_OF) run.folderMoved = true;
      }
      return outcomes;
    } catch (err) {
      // A refusal of the service (a member that is not one, the sending quota) is the step's answer.
      if (err instanceof AppError && err.statusCode < 500)
        return [refused('invalid_target', err.message, { error: err.errorName })];
      return [{ outcome: 'failed', error: err instanceof Error ? err.message : String(err) }];
    }
  }

  private async applyEnabled(run: RunContext, step: PlannedStep): Promise<StepOutcome[]> {
    const { inbox, threadId } = run;
    switch (step.action) {
      case 'draft_reply': {
        if (!step.replyText) return [refused('missing_field', 'draft_reply needs reply_text')];
        const draft = await this.deps.drafts.create(
          inbox,
          { thread_id: threadId, reply_to_email_id: run.emailId, text: step.replyText },
          'agent',
        );
        return [{ outcome: 'applied', draft_id: draft.id, reply_to_email_id: run.emailId }];
      }
      case 'add_labels':
        return this.addLabels(run, step.labels);
      case 'assign_thread': {
        if (!step.assigneeEmail) return [refused('missing_field', 'assign_thread needs assignee_email')];
        await this.deps.threads.update(inbox, threadId, { assignee_email: step.assigneeEmail }, { source: 'agent' });
        // The member's address as the team spells it (the model's may differ in case).
        const thread = await this.deps.threads.find(inbox, threadId);
        return [{ outcome: 'applied', assignee_email: thread.assigneeEmail }];
      }
      case 'mark_as_spam':
      case 'archive':
      case 'move_to_trash': {
        const folder = FOLDER_OF[step.action];
        await this.deps.threads.update(inbox, threadId, { folder }, { source: 'agent' });
        return [{ outcome: 'applied', folder }];
      }
      case 'forward_thread':
        return this.forward(run, step.to);
      default:
        return [refused('unknown_action', `${step.action} is not an action of the inbox agent`)];
    }
  }

  /** Existing labels only, named or by id as the model gives them; unknown ones are a refusal of their own. */
  private async addLabels(run: RunContext, wanted: string[]): Promise<StepOutcome[]> {
    if (wanted.length === 0) return [refused('missing_field', 'add_labels needs at least one label')];
    const found = new Map<string, InboxLabel>();
    const unknown: string[] = [];
    for (const one of wanted) {
      const key = one.toLowerCase();
      const label = run.labels.find((l) => l.id === key || l.name.toLowerCase() === key);
      if (label) found.set(label.id, label);
      else unknown.push(one);
    }
    const outcomes: StepOutcome[] = [];
    const labels = [...found.values()].slice(0, MAX_LABELS_PER_CALL);
    if (labels.length > 0) {
      await this.deps.threads.changeLabels(run.inbox, run.threadId, { add: labels.map((l) => l.id) }, 'agent');
      outcomes.push({ outcome: 'applied', labels: labels.map(({ id, name }) => ({ id, name })) });
    }
    if (unknown.length > 0)
      outcomes.push(refused('invalid_target', `not labels of this inbox: ${unknown.join(', ')}`, { labels: unknown }));
    return outcomes;
  }

  /** Only to addresses the team wrote in the instructions; the others are refused, and recorded. */
  private async forward(run: RunContext, to: string[]): Promise<StepOutcome[]> {
    if (to.length === 0) return [refused('missing_field', 'forward_thread needs at least one address in to')];
    const allowed: string[] = [];
    const refusedTo: string[] = [];
    for (const one of to) {
      const address = parseMailbox(one)?.address.toLowerCase();
      if (address && run.forwardable.has(address)) {
        if (!allowed.includes(address)) allowed.push(address);
      } else refusedTo.push(one);
    }
    const outcomes: StepOutcome[] = [];
    if (allowed.length > 0) {
      const caller = this.deps.systemCaller(run.team);
      const sent = await this.deps.units.run((unit) =>
        this.deps.sending.forward(caller, run.inbox, run.threadId, run.emailId, { to: allowed }, unit, 'agent'),
      );
      outcomes.push({ outcome: 'applied', to: allowed, email_id: sent.id, forwarded_email_id: run.emailId });
    }
    if (refusedTo.length > 0)
      outcomes.push(
        refused('invalid_target', 'only addresses written in the inbox’s instructions may be forwarded to', {
          to: refusedTo,
        }),
      );
    return outcomes;
  }
}
