import { REGIONS, NEXT_UNLOCK, TIER_NAMES, type Team, type TeamMember } from '../../core/teams/team.types.js';

/** The `sending` object: a new team (tier 0) is in the sandbox in every region. */
function sending(team: Team) {
  const tier = Math.min(Math.max(team.sendingTier, 0), TIER_NAMES.length - 1);
  return {
    sandbox_regions: tier === 0 ? [...REGIONS] : [],
    tier,
    tier_name: TIER_NAMES[tier]!,
    next_unlock: NEXT_UNLOCK[tier] ?? null,
  };
}

export function serializeTeam(team: Team) {
  return {
    object: 'team' as const,
    id: team.id,
    name: team.name,
    slug: team.slug,
    created_at: team.createdAt.toISOString(),
    risk_state: team.riskState,
    plan: { code: team.plan.code, name: team.plan.name, limits: { ...team.plan.limits } },
    sender_identity: { sender_name: team.senderName, postal_address: team.postalAddress },
    ai_assist_enabled: team.aiAssistEnabled,
    brand_kit: { ...team.brandKit },
    sending: sending(team),
    // Single sign-on is configured in the dashboard only; none is set up on this appliance yet.
    sso: null,
  };
}

export function serializeMember(member: TeamMember) {
  return {
    object: 'team_member' as const,
    id: member.id,
    email: member.email,
    name: member.name,
    role: member.role,
    mfa_enabled: member.mfaEnabled,
    created_at: member.createdAt.toISOString(),
  };
}
