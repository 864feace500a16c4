import type { Knex } from 'knex';
import {
  InvalidPermissionError,
  MissingRequiredFieldError,
  NotFoundError,
  ServiceUnavailableError,
  UnprocessableValidationError,
  ValidationError,
} from '../../../lib/errors.js';
import { newId } from '../../../lib/ids.js';
import type { Clock } from '../../../lib/clock.js';
import { isTeamAdmin, type Caller } from '../auth/caller.js';
import { findPlan, PLANS } from '../plans/plan.catalog.js';
import { TeamRepository, type TeamChanges } from './team.repository.js';
import type { UpdateTeamInput } from './team.schemas.js';
import { EMPTY_BRAND_KIT, RISK_STATES, TIER_NAMES, type RiskState, type Team, type TeamMember } from './team.types.js';

export type TeamServiceDeps = { knex: Knex; clock: Clock; aiConfigured: boolean };

export class TeamService {
  private readonly teams: TeamRepository;

  constructor(private readonly deps: TeamServiceDeps) {
    this.teams = new TeamRepository(deps.knex);
  }

  /** Creates a team (operator action). The first member, when given, is its owner. */
  async create(input: { name: string; planCode?: string; ownerEmail?: string }, trx?: Knex): Promise<Team> {
    const name = input.name.trim();
    if (name.length < 1 || name.length > 80 || /[\u0000-\u001f]/.test(name)) {
      throw new ValidationError('name must be 1 to 80 characters on one line', {
        errors: [{ path: 'name', message: 'must be 1 to 80 characters on one line' }],
      });
    }
    const planCode = input.planCode ?? 'free';
    if (!findPlan(planCode))
      throw new ValidationError(`unknown plan ${planCode}; plans: ${PLANS.map((p) => p.code).join(', ')}`);
    const now = this.deps.clock.now();
    const id = newId();
    // Every query on the caller's transaction when there is one (SQLite has a single connection).
    const teams = trx ? new TeamRepository(trx) : this.teams;
    const slug = await this.uniqueSlug(name, teams);
    await teams.insert({ id, name, slug, planCode, now });
    if (input.ownerEmail) {
      await teams.insertMember({
        id: newId(),
        teamId: id,
        email: input.ownerEmail.toLowerCase(),
        name: null,
        role: 'owner',
        mfaEnabled: false,
        createdAt: now,
      });
    }
    return (await teams.findById(id))!;
  }

  async get(id: string): Promise<Team> {
    const team = await this.teams.findById(id);
    if (!team) throw new NotFoundError('Team not found');
    return team;
  }

  async list(): Promise<Team[]> {
    return this.teams.list();
  }

  /** A page of every team, by id (the operator's list). */
  page(after: string | undefined, limit: number) {
    return this.teams.page(after, limit);
  }

  async members(teamId: string): Promise<TeamMember[]> {
    return this.teams.listMembers(teamId);
  }

  /** PATCH /team with every rule of the spec. */
  async update(team: Team, input: UpdateTeamInput, caller: Caller): Promise<Team> {
    if (Object.keys(input).length === 0) {
      throw new MissingRequiredFieldError(
        'Send at least one of name, sender_name, postal_address, ai_assist_enabled, brand_kit',
        {
          errors: [{ path: '', message: 'at least one field is required' }],
        },
      );
    }
    if (input.name !== undefined && !isTeamAdmin(caller))
      throw new InvalidPermissionError('Renaming the team needs a team admin');
    if (input.ai_assist_enabled === true && !this.deps.aiConfigured) {
      throw new ServiceUnavailableError('AI assist is not configured on this appliance');
    }
    if (typeof input.sender_name === 'string' && input.postal_address === undefined && !team.postalAddress) {
      throw new UnprocessableValidationError(
        'Set postal_address before sender_name: a sender identity needs a postal address',
        {
          errors: [{ path: 'postal_address', message: 'is required before sender_name can be set' }],
        },
      );
    }
    const changes: TeamChanges = {};
    if (input.name !== undefined) changes.name = input.name;
    if (input.sender_name !== undefined) changes.senderName = input.sender_name;
    if (input.postal_address !== undefined) {
      const a = input.postal_address;
      changes.postalAddress = {
        line1: a.line1,
        line2: a.line2 || null,
        city: a.city,
        state: a.state || null,
        postal_code: a.postal_code,
        country: a.country,
      };
    }
    if (input.ai_assist_enabled !== undefined) changes.aiAssistEnabled = input.ai_assist_enabled;
    if (input.brand_kit !== undefined) changes.brandKit = input.brand_kit === null ? EMPTY_BRAND_KIT : input.brand_kit;
    await this.teams.update(team.id, changes, this.deps.clock.now());
    return this.get(team.id);
  }

  /**
   * `trx`: the caller's transaction: an operator's command writes its audit entry in it, and the
   * payment provider's subscription change the provider's state stored beside it, so the plan
   * and its quotas never disagree with the subscription.
   */
  async setPlan(teamId: string, planCode: string, trx?: Knex): Promise<Team> {
    if (!findPlan(planCode))
      throw new ValidationError(`unknown plan ${planCode}; plans: ${PLANS.map((p) => p.code).join(', ')}`);
    return this.operatorUpdate(teamId, { planCode }, trx);
  }

  async setRiskState(teamId: string, riskState: string, trx?: Knex): Promise<Team> {
    if (!(RISK_STATES as readonly string[]).includes(riskState))
      throw new ValidationError(`risk state must be one of ${RISK_STATES.join(', ')}`);
    return this.operatorUpdate(teamId, { riskState: riskState as RiskState }, trx);
  }

  async setTier(teamId: string, tier: number, trx?: Knex): Promise<Team> {
    if (!Number.isInteger(tier) || tier < 0 || tier >= TIER_NAMES.length)
      throw new ValidationError('tier must be an integer from 0 to 3');
    return this.operatorUpdate(teamId, { sendingTier: tier }, trx);
  }

  /**
   * An operator's change of a team, read back in the same transaction (on SQLite's single
   * connection a read outside an open transaction would wait for it).
   */
  private async operatorUpdate(teamId: string, changes: TeamChanges, trx?: Knex): Promise<Team> {
    const teams = trx ? new TeamRepository(trx) : this.teams;
    if (!(await teams.findById(teamId))) throw new NotFoundError('Team not found');
    await teams.update(teamId, changes, this.deps.clock.now());
    return (await teams.findById(teamId))!;
  }

  private async uniqueSlug(name: string, teams: TeamRepository): Promise<string> {
    const base =
      name
        .toLowerCase()
        .normalize('NFKD')
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, '')
        .slice(0, 40) || 'team';
    if (!(await teams.slugExists(base))) return base;
    for (;;) {
      const candidate = `${base}-${Math.random().toString(36).slice(2, 8)}`;
      if (!(await teams.slugExists(candidate))) return candidate;
    }
  }
}
