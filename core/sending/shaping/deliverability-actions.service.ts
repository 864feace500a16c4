import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';
import { newId } from '../../../lib/ids.js';
import type { KeyValueStore } from '../../../lib/kv/kv.js';
import type { Logger } from '../../../lib/logger.js';
import { DeliverabilityActionRepository } from './deliverability-action.repository.js';
import type { ReactionMatcher } from './reaction-matcher.js';
import type { DeliverabilityAction, ReactionRule } from './shaping.types.js';

export type ShapingSettings = {
  restoreSeconds: number;
  minimumFactor: number;
  pauseSeconds: number;
  settleSeconds: number;
};

/** The actions in force, looked up by what the delivery path asks. */
export class ActionsInForce {
  private readonly pauses = new Map<string, DeliverabilityAction>();
  private readonly slows = new Map<string, DeliverabilityAction>();
  private readonly suspensions = new Map<string, DeliverabilityAction>();

  constructor(
    actions: DeliverabilityAction[],
    private readonly restoreMs: number,
  ) {
    for (const action of actions) {
      if (action.kind === 'pause') this.pauses.set(`${action.provider}|${action.egressIp}`, action);
      if (action.kind === 'slow') this.slows.set(`${action.provider}|${action.egressIp}`, action);
      if (action.kind === 'suspend_marketing') this.suspensions.set(`${action.teamId}|${action.provider}`, action);
    }
  }

  pause(provider: string, egressIp: string, now: Date): DeliverabilityAction | null {
    const action = this.pauses.get(`${provider}|${egressIp}`);
    return action && action.endsAt > now ? action : null;
  }

  /** The share of the provider's limits this address may use now (1: not slowed). */
  factor(provider: string, egressIp: string, now: Date): number {
    const action = this.slows.get(`${provider}|${egressIp}`);
    return action && action.endsAt > now ? restoredFactor(action, now, this.restoreMs) : 1;
  }

  suspension(teamId: string, provider: string, now: Date): DeliverabilityAction | null {
    const action = this.suspensions.get(`${teamId}|${provider}`);
    return action && action.endsAt > now ? action : null;
  }
}

/** A slow action's share now: it doubles back every restore period until it is whole again. */
export function restoredFactor(action: DeliverabilityAction, now: Date, restoreMs: number): number {
  const periods = Math.max(0, Math.floor((now.getTime() - action.startedAt.getTime()) / restoreMs));
  return Math.min(1, (action.factor ?? 1) * 2 ** periods);
}

/** How long until a share of `factor` has doubled back to 1. */
const restoreDurationMs = (factor: number, restoreMs: number) => Math.ceil(Math.log2(1 / factor)) * restoreMs;

/** How long the delivery path may rely on the actions it read (every node sees a new action within it). */
const IN_FORCE_CACHE_MS = 2000;

/**
 * Reactions to what receivers answer. A reply matching a reaction rule slows the (provider,
 * address) pair to half its current share of the provider's limits (it doubles back every
 * restoreSeconds), or pauses it; slowing below the minimum share pauses instead. Each action is
 * a row every mta node reads (so all of them honour it), a log line and a metric, and it ends on
 * its own. Replies arriving together (every connection gets the same 421) make one action: a
 * short-lived key in the shared store lets only the first through per settle period.
 */
export class DeliverabilityActions {
  readonly repository: DeliverabilityActionRepository;
  private cached: { at: number; value: Promise<ActionsInForce> } | null = null;
  private readonly listeners: Array<(action: DeliverabilityAction) => void> = [];

  constructor(
    private readonly deps: {
      knex: Knex;
      clock: Clock;
      kv: KeyValueStore;
      logger: Logger;
      reactions: ReactionMatcher;
      settings: ShapingSettings;
    },
  ) {
    this.repository = new DeliverabilityActionRepository(deps.knex);
  }

  /** Called with each new action (the mta's metrics). */
  onAction(listener: (action: DeliverabilityAction) => void): void {
    this.listeners.push(listener);
  }

  /** The actions in force, read at most every 2 s per process. */
  inForce(): Promise<ActionsInForce> {
    const now = Date.now();
    if (!this.cached || now - this.cached.at > IN_FORCE_CACHE_MS) {
      const value = this.repository
        .inForce(this.deps.clock.now())
        .then((actions) => new ActionsInForce(actions, this.deps.settings.restoreSeconds * 1000));
      value.catch(() => (this.cached = null));
      this.cached = { at: now, value };
    }
    return this.cached.value;
  }

  /** Reads the actions afresh on the next inForce() (another process changed them). */
  invalidate(): void {
    this.cached = null;
  }

  /** The rule a reply matches, if any (the delivery path asks before it records the outcome). */
  ruleFor(provider: string | null, reply: string): ReactionRule | null {
    return this.deps.reactions.match(provider, reply);
  }

  /**
   * Reacts to a reply from `provider` to `egressIp`: the new action, or null when the reply
   * matches no rule or an action for it was just taken.
   */
  async react(
    provider: { key: string; name: string | null },
    egressIp: string,
    reply: string,
  ): Promise<DeliverabilityAction | null> {
    const rule = this.ruleFor(provider.name, reply);
    if (!rule) return null;
    const { settings, kv } = this.deps;
    const gate = `shape:react:${provider.key}:${egressIp}:${rule.action}`;
    if (settings.settleSeconds > 0 && !(await kv.setIfAbsent(gate, rule.id, settings.settleSeconds * 1000)))
      return null;
    const now = this.deps.clock.now();
    const current = await this.inForce();
    if (current.pause(provider.key, egressIp, now)) return null;
    const restoreMs = settings.restoreSeconds * 1000;
    const halved = current.factor(provider.key, egressIp, now) / 2;
    const pause = rule.action === 'pause' || halved < settings.minimumFactor;
    const action: DeliverabilityAction = {
      id: newId(),
      kind: pause ? 'pause' : 'slow',
      provider: provider.key,
      egressIp,
      teamId: null,
      factor: pause ? null : halved,
      ruleId: rule.id,
      reason: reply,
      startedAt: now,
      endsAt: new Date(
        now.getTime() +
          (pause ? (rule.pauseSeconds ?? settings.pauseSeconds) * 1000 : restoreDurationMs(halved, restoreMs)),
      ),
    };
    await this.record(action);
    // After a pause the address comes back at the minimum share, then doubles back.
    if (pause && halved < settings.minimumFactor) {
      const factor = settings.minimumFactor;
      await this.record({
        ...action,
        id: newId(),
        kind: 'slow',
        factor,
        startedAt: action.endsAt,
        endsAt: new Date(action.endsAt.getTime() + restoreDurationMs(factor, restoreMs)),
      });
    }
    return action;
  }

  /** A team's marketing mail to a provider stops for `hours` (its complaint rate there is too high). */
  async suspendMarketing(
    teamId: string,
    provider: string,
    reason: string,
    hours: number,
  ): Promise<DeliverabilityAction> {
    const now = this.deps.clock.now();
    const action: DeliverabilityAction = {
      id: newId(),
      kind: 'suspend_marketing',
      provider,
      egressIp: null,
      teamId,
      factor: null,
      ruleId: 'complaint-rate',
      reason,
      startedAt: now,
      endsAt: new Date(now.getTime() + hours * 3600_000),
    };
    await this.record(action);
    return action;
  }

  /** The reaction rules in force (configured ones first), for the admin API. */
  reactionRules(): readonly ReactionRule[] {
    return this.deps.reactions.all();
  }

  /** A slow action's share of the limits at `now` (it doubles back as time passes); null for other kinds. */
  factorAt(action: DeliverabilityAction, now: Date): number | null {
    const restoreMs = this.deps.settings.restoreSeconds * 1000;
    return action.kind === 'slow' ? restoredFactor(action, now, restoreMs) : null;
  }

  /** The operator lifts an action before its end. */
  async end(id: string): Promise<boolean> {
    const ended = await this.repository.end(id, this.deps.clock.now());
    this.cached = null;
    return ended;
  }

  private async record(action: DeliverabilityAction): Promise<void> {
    await this.repository.insert(action);
    this.cached = null;
    this.deps.logger.warn(
      {
        action: action.kind,
        provider: action.provider,
        egressIp: action.egressIp,
        teamId: action.teamId,
        factor: action.factor,
        rule: action.ruleId,
        until: action.endsAt.toISOString(),
        reply: action.reason,
      },
      `deliverability: ${action.kind} ${action.provider}${action.egressIp ? ` from ${action.egressIp}` : ''} until ${action.endsAt.toISOString()}`,
    );
    for (const listener of this.listeners) listener(action);
  }
}
