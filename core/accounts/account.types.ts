import type { Team, TeamMember } from '../platform/teams/team.types.js';

export type User = {
  id: string;
  /** Lower-cased: addresses are unique case-insensitively. */
  email: string;
  name: string | null;
  emailVerifiedAt: Date | null;
  createdAt: Date;
};

export type Role = TeamMember['role'];

export type AccountTokenKind = 'verify_email' | 'password_reset' | 'mfa_challenge';

/** Lifetimes of the account system, in milliseconds. */
export const SESSION_ABSOLUTE_MS = 30 * 86_400_000;
export const SESSION_IDLE_MS = 7 * 86_400_000;
export const TOKEN_LIFETIME_MS: Record<AccountTokenKind, number> = {
  verify_email: 48 * 3_600_000,
  password_reset: 3_600_000,
  /** Between a correct password and the second factor. */
  mfa_challenge: 5 * 60_000,
};
/** A team invitation's link (its token is single-use like the others). */
export const INVITATION_LIFETIME_MS = 7 * 86_400_000;
/** The set-password link `mailroom user create` prints (a password_reset token). */
export const SET_PASSWORD_LIFETIME_MS = 24 * 3_600_000;

/** A live session as the pipeline resolves it from the cookie. */
export type SessionCaller = {
  sessionId: string;
  expiresAt: Date;
  user: User;
  /** Opened through a team's identity provider, not with a password. */
  viaSso: boolean;
  /** The team the session acts in, with the user's role there; null when the user has none. */
  team: Team | null;
  role: Role | null;
};

/** What signup and login hand back: the cookie's token (shown once) and the session. */
export type IssuedSession = { token: string; expiresAt: Date; session: SessionCaller };

/**
 * Login's answer: a session, or (MFA on) a challenge to answer with a code. `passwordBypass`
 * names the team whose enforced single sign-on an owner's password sign-in went past (audited).
 */
export type LoginOutcome = (
  { kind: 'session'; issued: IssuedSession } | { kind: 'mfa'; challengeToken: string; expiresAt: Date }
) & { passwordBypass?: { teamId: string; userId: string; email: string } };

/** The team whose active, enforced single sign-on covers an address, or null (see core/sso). */
export type SsoPasswordRule = (email: string) => Promise<{ teamId: string } | null>;

export type MfaStatus = {
  enabled: boolean;
  enabledAt: Date | null;
  enrolling: boolean;
  recoveryCodesRemaining: number;
  hasPassword: boolean;
};
