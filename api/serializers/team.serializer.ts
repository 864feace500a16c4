import { sendingStatus } from '../../core/sending/domains/sending-status.js';
import type { Team, TeamMember } from '../../core/platform/teams/team.types.js';
import type { SsoSummary } from '../../core/sso/sso.types.js';
import { serializeSsoSummary } from './sso.serializer.js';

/** `sso`: the team's single sign-on as the spec shows it (configured in the dashboard only), or null. */
export function serializeTeam(team: Team, sso: SsoSummary | null = null) {
  return {
    object: 'team' as const,
    id: team.id,
    name: team.name,
    slug: team.slug,
    created_at: team.createdAt.toISOString(),
    risk_state: team.riskState,
    // single_sign_on: whether the plan includes it (the spec's plan object leaves features out; the
    // dashboard says so before anyone fills in a provider).
    plan: {
      code: team.plan.code,
      name: team.plan.name,
      limits: { ...team.plan.limits },
      single_sign_on: team.plan.sso,
    },
    sender_identity: { sender_name: team.senderName, postal_address: team.postalAddress },
    ai_assist_enabled: team.aiAssistEnabled,
    brand_kit: { ...team.brandKit },
    sending: sendingStatus(team),
    sso: serializeSsoSummary(sso),
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
