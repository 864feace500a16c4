import type { Knex } from 'knex';
import type { UnitsOfWork } from '../../../db/unit-of-work.js';
import { RateLimitExceededError } from '../../../lib/errors.js';
import type { AiAccess } from '../../ai/ai-access.js';
import type { AiCredits, AiProvider } from '../../ai/ai.types.js';
import type { Team } from '../../platform/teams/team.types.js';
import type { InboxLabelService } from '../inbox-label.service.js';
import type { InboxThreadService } from '../inbox-thread.service.js';
import type { Inbox } from '../inbox.types.js';
import { addressesInInstructions, agentPlanJsonSchema, agentPlanReply, type PlannedStep } from './agent-plan.js';
import { agentPrompt, type FirstEmail } from './agent-prompt.js';
import type { AgentSteps, RunContext, StepOutcome } from './agent-steps.js';

/** The action recorded when the model could not be used: nothing else is done to the thread. */
export const AGENT_FAILED = 'agent_failed';
/** Waits for the team's AI request bucket (10 a minute) before a run gives up on a burst of mail. */
const RATE_LIMIT_WAITS = 5;

export type InboxAgentDeps<C> = {
  knex: Knex;
  units: UnitsOfWork;
  /** The AI group's model and checks; read per run (the AI group is built after this one). */
  ai: () => { provider: AiProvider; access: AiAccess };
  team: (teamId: string) => Promise<Team>;
  threads: InboxThreadService;
  labels: InboxLabelService;
  steps: AgentSteps<C>;
  warn: (details: Record<string, unknown>, message: string) => void;
  /** How a run waits for the rate limit (tests never reach it; a timer otherwise). */
  sleep?: (ms: number) => Promise<void>;
};

/**
 * The inbox agent (issue 38): reads each new thread of an inbox that has enabled actions, when
 * AI is configured and the team's AI assist is on, asks the model which of those actions to take,
 * and applies them. It runs after the intake's commit and outside it: the mail is already safe,
 * so nothing the agent does (or fails to do) reaches the intake. Every applied or refused step,
 * and a failed read, is recorded on the thread with the model's reason (GET .../actions).
 * One AI credit is spent per thread the model answered, as the AI helpers spend them.
 */
export class InboxAgent<C> {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly deps: InboxAgentDeps<C>) {}

  /** The listener of InboxConversations.onNewThread: starts a run and returns at once. */
  readonly read = (inbox: Inbox, threadId: string): void => {
    if (inbox.agent.actions.length === 0) return;
    const run: Promise<void> = this.run(inbox, threadId)
      .catch((err: unknown) => this.deps.warn({ err, inboxId: inbox.id, threadId }, 'the inbox agent could not run'))
      .finally(() => this.inFlight.delete(run));
    this.inFlight.add(run);
  };

  /** Resolves once no run is in flight (a run started meanwhile is waited for too). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private async run(inbox: Inbox, threadId: string): Promise<void> {
    const { provider, access } = this.deps.ai();
    if (!provider.configured) return;
    const team = await this.deps.team(inbox.teamId);
    if (!team.aiAssistEnabled) return;
    let answered: Awaited<ReturnType<typeof this.ask>>;
    try {
      answered = await this.ask(provider, access, inbox, team, threadId);
    } catch (err) {
      // No answer, no part of one applied: the thread stays as it arrived, with the reason recorded.
      const error = err instanceof Error ? err.message : String(err);
      await this.record(inbox, threadId, AGENT_FAILED, null, { error });
      return;
    }
    const { before, run, plan } = answered;
    // The answer validated: the read is spent, whatever the steps then do.
    await this.deps.units.run((unit) => access.spend(unit, team.id, threadId, before));
    for (const step of plan)
      for (const outcome of await this.deps.steps.apply(run, step))
        await this.record(inbox, threadId, step.action, step.reason, outcome);
  }

  /** The credits and the bucket, then the model's plan for the thread's first email. */
  private async ask(provider: AiProvider, access: AiAccess, inbox: Inbox, team: Team, threadId: string) {
    const before = await this.admit(access, team);
    const [email, labels] = await Promise.all([this.firstEmail(inbox, threadId), this.deps.labels.list(inbox)]);
    const run: RunContext = {
      inbox,
      team,
      threadId,
      emailId: email.id,
      labels,
      forwardable: addressesInInstructions(inbox.agent.instructions),
      done: new Set(),
      folderMoved: false,
    };
    const prompt = agentPrompt({
      instructions: inbox.agent.instructions,
      tone: inbox.agent.tone,
      actions: inbox.agent.actions,
      labels: labels.map((label) => label.name),
      email,
    });
    const plan: PlannedStep[] = await provider.complete({
      name: 'inbox_agent',
      ...prompt,
      jsonSchema: agentPlanJsonSchema,
      reply: agentPlanReply,
    });
    return { before, run, plan };
  }

  /** The AI checks 3 and 4 (credits, the team's request bucket); a burst of mail waits for the bucket. */
  private async admit(access: AiAccess, team: Team): Promise<AiCredits> {
    for (let wait = 0; ; wait++) {
      try {
        return await access.admit(team);
      } catch (err) {
        if (!(err instanceof RateLimitExceededError) || wait >= RATE_LIMIT_WAITS) throw err;
        const seconds = Number(err.headers?.['retry-after'] ?? 6);
        await (this.deps.sleep ?? sleep)(Math.min(60, Math.max(1, seconds)) * 1000);
      }
    }
  }

  /** The thread's first email (subject, sender, plain text; the HTML's text when there is no text part). */
  private async firstEmail(inbox: Inbox, threadId: string): Promise<FirstEmail & { id: string }> {
    const { data } = await this.deps.threads.emails(inbox, threadId, { limit: 1 });
    const first = data[0];
    if (!first) throw new Error('the thread has no email');
    const text = first.text ?? htmlText(first.html ?? '');
    return { id: first.id, subject: first.subject, from: first.from, text };
  }

  private record(
    inbox: Inbox,
    threadId: string,
    action: string,
    reason: string | null,
    detail: StepOutcome | Record<string, unknown>,
  ): Promise<void> {
    return this.deps.threads.recordAction(this.deps.knex, inbox, threadId, { action, source: 'agent', reason, detail });
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

function htmlText(html: string): string {
  return html
    .replace(/<(style|script)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/[ \t]+/g, ' ')
    .trim();
}
