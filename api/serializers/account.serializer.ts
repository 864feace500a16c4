import type { SessionCaller, User } from '../../core/accounts/account.types.js';
import type { OperatorAccess } from '../../core/accounts/operator.service.js';
import type { InvitationPreview, InvitationView } from '../../core/accounts/invitation.types.js';
import type { Team } from '../../core/platform/teams/team.types.js';

/** The spec's User shape (never the password hash). */
export function serializeUser(user: User) {
  return {
    object: 'user' as const,
    id: user.id,
    email: user.email,
    name: user.name,
    email_verified_at: user.emailVerifiedAt?.toISOString() ?? null,
    created_at: user.createdAt.toISOString(),
  };
}

/** The team element inside a session: only object, id, name, slug, risk_state, created_at. */
export function serializeSessionTeam(team: Team) {
  return {
    object: 'team' as const,
    id: team.id,
    name: team.name,
    slug: team.slug,
    risk_state: team.riskState,
    created_at: team.createdAt.toISOString(),
  };
}

/**
 * `user.operator` says whether the person runs the appliance (the admin API); an operator whose
 * MFA is not on yet gets `operator_mfa_required: true`: the dashboard sends them to enrolment.
 */
export function serializeSession(session: SessionCaller, access: OperatorAccess) {
  return {
    object: 'session' as const,
    user: { ...serializeUser(session.user), operator: access.operator },
    current_team: session.team ? serializeSessionTeam(session.team) : null,
    operator_mfa_required: access.operator && !access.mfaEnabled,
  };
}

/** Our Invitation shape (the spec shows none): never the token, which only the mail carries. */
export function serializeInvitation(invitation: InvitationView) {
  return {
    object: 'invitation' as const,
    id: invitation.id,
    team_id: invitation.teamId,
    email: invitation.email,
    role: invitation.role,
    status: invitation.status,
    invited_by: invitation.invitedByUserId,
    created_at: invitation.createdAt.toISOString(),
    expires_at: invitation.expiresAt.toISOString(),
  };
}

/** What the accept page shows the link's holder: the team by name, the address and the role. */
export function serializeInvitationPreview({ invitation, team }: InvitationPreview) {
  return {
    object: 'invitation' as const,
    team: { id: team.id, name: team.name },
    email: invitation.email,
    role: invitation.role,
    status: invitation.status,
    expires_at: invitation.expiresAt.toISOString(),
  };
}
