import type { Role } from './account.types.js';

/** An invitation grants any role but owner: ownership is handed over, not mailed. */
export type InvitationRole = Exclude<Role, 'owner'>;

/** Read from the row's stamps and expires_at (see viewInvitation), never stored. */
export type InvitationStatus = 'pending' | 'accepted' | 'revoked' | 'expired';

export type Invitation = {
  id: string;
  teamId: string;
  /** Lower-cased. */
  email: string;
  role: InvitationRole;
  invitedByUserId: string;
  createdAt: Date;
  expiresAt: Date;
  acceptedAt: Date | null;
  acceptedByUserId: string | null;
  revokedAt: Date | null;
};

/** An invitation as the API shows it: with its status at the time of the request. */
export type InvitationView = Invitation & { status: InvitationStatus };

/** What the link's holder may see before accepting: the team by name, not its members. */
export type InvitationPreview = { invitation: InvitationView; team: { id: string; name: string } };

export function viewInvitation(invitation: Invitation, now: Date): InvitationView {
  return { ...invitation, status: statusAt(invitation, now) };
}

function statusAt(invitation: Invitation, now: Date): InvitationStatus {
  if (invitation.revokedAt) return 'revoked';
  if (invitation.acceptedAt) return 'accepted';
  return invitation.expiresAt.getTime() <= now.getTime() ? 'expired' : 'pending';
}
