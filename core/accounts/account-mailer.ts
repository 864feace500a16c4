import type { Logger } from '../../lib/logger.js';
import type { User } from './account.types.js';

export type AccountMessage = { to: string; subject: string; text: string; html: string };

export type AccountMailerDeps = {
  /** Absent when accounts.mailFrom / accounts.mailTeamId are not configured. */
  send?: (message: AccountMessage) => Promise<void>;
  logger: Logger;
  publicUrl: () => string;
};

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * Verification and password-reset mail. With a sender configured it goes out through the
 * appliance's own send path; without one the link is written to the process log, so a fresh
 * install (or a closed appliance whose operator relays links by hand) still works. A failed
 * send is logged, never thrown: the request that caused it has already succeeded.
 */
export class AccountMailer {
  constructor(private readonly deps: AccountMailerDeps) {}

  async sendVerification(user: User, token: string): Promise<void> {
    const link = this.link('/auth/verify-email', token);
    await this.deliver(user, 'verify_email', link, 'Confirm your e-mail address', 'confirm your address', '48 hours');
  }

  async sendPasswordReset(user: User, token: string): Promise<void> {
    const link = this.link('/auth/password-reset', token);
    await this.deliver(user, 'password_reset', link, 'Reset your password', 'choose a new password', '1 hour');
  }

  /** A link the dashboard serves: it POSTs the token to the API. */
  link(path: string, token: string): string {
    return `${this.deps.publicUrl().replace(/\/+$/, '')}${path}?token=${encodeURIComponent(token)}`;
  }

  private async deliver(user: User, kind: string, link: string, subject: string, action: string, valid: string) {
    const { send, logger } = this.deps;
    if (!send) {
      logger.info({ kind, to: user.email, link }, 'account mail not configured: link written to the log');
      return;
    }
    const text = `Open this link to ${action}:\n\n${link}\n\nIt is valid for ${valid} and works once. If you did not ask for it, ignore this message.\n`;
    const html = `<p>Open this link to ${action}:</p><p><a href="${escape(link)}">${escape(link)}</a></p><p>It is valid for ${valid} and works once. If you did not ask for it, ignore this message.</p>`;
    try {
      await send({ to: user.email, subject, text, html });
    } catch (err) {
      logger.error({ err, kind, userId: user.id }, 'account mail could not be sent');
    }
  }
}
