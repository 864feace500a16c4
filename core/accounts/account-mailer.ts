import type { Logger } from '../../lib/logger.js';
import type { User } from './account.types.js';

/**
 * The dashboard pages a mailed link opens (web/src/routes.tsx): each posts the token to the
 * session API (POST /auth/verify-email, /auth/password-reset, /auth/invitations/accept).
 */
export const DASHBOARD_LINKS = {
  verifyEmail: '/dashboard/verify-email',
  resetPassword: '/dashboard/reset-password',
  acceptInvitation: '/dashboard/invitations/accept',
} as const;

export type AccountMessage = { to: string; subject: string; text: string; html: string };

export type AccountMailerDeps = {
  /** Absent when accounts.mailFrom / accounts.mailTeamId are not configured. */
  send?: (message: AccountMessage) => Promise<void>;
  logger: Logger;
  publicUrl: () => string;
};

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** One message: who gets it, the link, and the words around it. */
type Letter = {
  to: string;
  /** Logged with the link (tests and operators read links by kind). */
  kind: string;
  link: string;
  subject: string;
  action: string;
  valid: string;
  /** A first paragraph, when the link needs explaining (who invited you, to what). */
  intro?: string;
  /** What a failed send is logged with (never the link: it is a credential). */
  ref: Record<string, string>;
};

/**
 * Verification, password-reset and invitation mail. With a sender configured it goes out through
 * the appliance's own send path; without one the link is written to the process log, so a fresh
 * install (or a closed appliance whose operator relays links by hand) still works. A failed
 * send is logged, never thrown: the request that caused it has already succeeded.
 */
export class AccountMailer {
  constructor(private readonly deps: AccountMailerDeps) {}

  async sendVerification(user: User, token: string): Promise<void> {
    await this.deliver({
      to: user.email,
      kind: 'verify_email',
      link: this.link(DASHBOARD_LINKS.verifyEmail, token),
      subject: 'Confirm your e-mail address',
      action: 'confirm your address',
      valid: '48 hours',
      ref: { userId: user.id },
    });
  }

  async sendPasswordReset(user: User, token: string): Promise<void> {
    await this.deliver({
      to: user.email,
      kind: 'password_reset',
      link: this.link(DASHBOARD_LINKS.resetPassword, token),
      subject: 'Reset your password',
      action: 'choose a new password',
      valid: '1 hour',
      ref: { userId: user.id },
    });
  }

  /** The subject stays fixed: team and inviter names are the inviter's text, kept to the body. */
  async sendInvitation(
    invitation: { id: string; email: string; role: string },
    team: { name: string },
    inviter: User,
    token: string,
  ): Promise<void> {
    await this.deliver({
      to: invitation.email,
      kind: 'invitation',
      link: this.link(DASHBOARD_LINKS.acceptInvitation, token),
      subject: 'You are invited to a team on Mailroom',
      action: 'accept the invitation',
      valid: '7 days',
      intro: `${inviter.name ?? inviter.email} invited you to join the team "${team.name}" as ${invitation.role}.`,
      ref: { invitationId: invitation.id },
    });
  }

  /** A link the dashboard serves: it POSTs the token to the API. */
  link(path: string, token: string): string {
    return `${this.deps.publicUrl().replace(/\/+$/, '')}${path}?token=${encodeURIComponent(token)}`;
  }

  private async deliver(letter: Letter) {
    const { send, logger } = this.deps;
    const { to, kind, link, subject, action, valid, intro } = letter;
    if (!send) {
      logger.info({ kind, to, link }, 'account mail not configured: link written to the log');
      return;
    }
    const closing = `It is valid for ${valid} and works once. If you did not ask for it, ignore this message.`;
    const text = `${intro ? `${intro}\n\n` : ''}Open this link to ${action}:\n\n${link}\n\n${closing}\n`;
    const html = `${intro ? `<p>${escape(intro)}</p>` : ''}<p>Open this link to ${action}:</p><p><a href="${escape(link)}">${escape(link)}</a></p><p>${closing}</p>`;
    try {
      await send({ to, subject, text, html });
    } catch (err) {
      logger.error({ err, kind, ...letter.ref }, 'account mail could not be sent');
    }
  }
}
