import type { Knex } from 'knex';
import { readBoolean, readJson, readTimestamp, writeJson } from '../../../db/dialect.js';
import { planOrFree } from '../plans/plan.catalog.js';
import {
  EMPTY_BRAND_KIT,
  type BrandKit,
  type PostalAddress,
  type RiskState,
  type Team,
  type TeamMember,
} from './team.types.js';

type TeamRow = {
  id: string;
  name: string;
  slug: string;
  risk_state: string;
  plan_code: string;
  sending_tier: number;
  sender_name: string | null;
  postal_address: string | null;
  ai_assist_enabled: number | boolean;
  brand_kit: string | null;
  created_at: unknown;
  updated_at: unknown;
};

function toTeam(row: TeamRow): Team {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    riskState: row.risk_state as RiskState,
    plan: planOrFree(row.plan_code),
    sendingTier: Number(row.sending_tier),
    senderName: row.sender_name,
    postalAddress: readJson<PostalAddress | null>(row.postal_address, null),
    aiAssistEnabled: readBoolean(row.ai_assist_enabled),
    brandKit: { ...EMPTY_BRAND_KIT, ...readJson<Partial<BrandKit>>(row.brand_kit, {}) },
    createdAt: readTimestamp(row.created_at),
    updatedAt: readTimestamp(row.updated_at),
  };
}

export type TeamChanges = Partial<{
  name: string;
  riskState: RiskState;
  planCode: string;
  sendingTier: number;
  senderName: string | null;
  postalAddress: PostalAddress | null;
  aiAssistEnabled: boolean;
  brandKit: BrandKit;
}>;

export class TeamRepository {
  constructor(private readonly knex: Knex) {}

  async insert(team: { id: string; name: string; slug: string; planCode: string; now: Date }): Promise<void> {
    await this.knex('teams').insert({
      id: team.id,
      name: team.name,
      slug: team.slug,
      plan_code: team.planCode,
      risk_state: 'normal',
      sending_tier: 0,
      ai_assist_enabled: false,
      created_at: team.now,
      updated_at: team.now,
    });
  }

  async findById(id: string): Promise<Team | undefined> {
    const row = (await this.knex('teams').where({ id }).first()) as TeamRow | undefined;
    return row ? toTeam(row) : undefined;
  }

  async slugExists(slug: string): Promise<boolean> {
    return Boolean(await this.knex('teams').where({ slug }).first('id'));
  }

  async update(id: string, changes: TeamChanges, now: Date): Promise<void> {
    const row: Record<string, unknown> = { updated_at: now };
    if (changes.name !== undefined) row.name = changes.name;
    if (changes.riskState !== undefined) row.risk_state = changes.riskState;
    if (changes.planCode !== undefined) row.plan_code = changes.planCode;
    if (changes.sendingTier !== undefined) row.sending_tier = changes.sendingTier;
    if (changes.senderName !== undefined) row.sender_name = changes.senderName;
    if (changes.postalAddress !== undefined) row.postal_address = writeJson(changes.postalAddress);
    if (changes.aiAssistEnabled !== undefined) row.ai_assist_enabled = changes.aiAssistEnabled;
    if (changes.brandKit !== undefined) row.brand_kit = writeJson(changes.brandKit);
    await this.knex('teams').where({ id }).update(row);
  }

  /** Teams by id (time-ordered), after the cursor `after`; one more than `limit` tells has_more. */
  async page(after: string | undefined, limit: number): Promise<{ teams: Team[]; hasMore: boolean }> {
    const query = this.knex('teams')
      .orderBy('id', 'asc')
      .limit(limit + 1);
    if (after) query.where('id', '>', after);
    const rows = (await query) as TeamRow[];
    return { teams: rows.slice(0, limit).map(toTeam), hasMore: rows.length > limit };
  }

  async list(): Promise<Team[]> {
    const rows = (await this.knex('teams').orderBy('id', 'asc')) as TeamRow[];
    return rows.map(toTeam);
  }

  async insertMember(member: TeamMember): Promise<void> {
    await this.knex('team_members').insert({
      id: member.id,
      team_id: member.teamId,
      email: member.email,
      name: member.name,
      role: member.role,
      mfa_enabled: member.mfaEnabled,
      created_at: member.createdAt,
    });
  }

  async listMembers(teamId: string): Promise<TeamMember[]> {
    const rows = await this.knex('team_members').where({ team_id: teamId }).orderBy('id', 'asc');
    return rows.map((row: Record<string, unknown>) => ({
      id: String(row.id),
      teamId: String(row.team_id),
      email: String(row.email),
      name: (row.name as string | null) ?? null,
      role: row.role as TeamMember['role'],
      mfaEnabled: readBoolean(row.mfa_enabled),
      createdAt: readTimestamp(row.created_at),
    }));
  }
}
