import type { Knex } from 'knex';
import type { Clock } from '../../../../lib/clock.js';
import { NotFoundError } from '../../../../lib/errors.js';
import { isUuid, newId } from '../../../../lib/ids.js';
import { EmailShareRepository } from './email-share.repository.js';
import { shareLifetimeMs } from './share-lifetime.js';
import { hashShareToken, newShareToken, SHARE_TOKEN_PATTERN } from './share-token.js';
import type { ShareSource, SharedEmail, SharedEmailLoader } from './shared-email.types.js';

export type EmailShareServiceDeps = {
  knex: Knex;
  clock: Clock;
  /** The public base URL the pages are served on (share pages live at /share/{token}). */
  publicUrl: () => string;
  sent: SharedEmailLoader;
  received: SharedEmailLoader;
  /**
   * Refuses (403 email_above_quota) when the team may not see email content now: checked when a
   * link is made and again each time the page opens, so a link made earlier stops showing the
   * content while the team is over quota.
   */
  assertContentAvailable: (teamId: string) => Promise<void>;
};

export type CreatedShare = { emailId: string; url: string; expiresAt: Date };

/**
 * Share links (POST /emails/{id}/share): an unguessable, expiring URL that shows one email,
 * read-only, to anyone holding it. Only the token's hash is stored; a revoked or expired link,
 * or one whose email is gone (retention), is a plain not-found.
 */
export class EmailShareService {
  private readonly repository: EmailShareRepository;

  constructor(private readonly deps: EmailShareServiceDeps) {
    this.repository = new EmailShareRepository(deps.knex);
  }

  /**
   * A new link to one email of the team: a sent email, or (when `withReceived`, i.e. the caller
   * may read received mail) a received one; the OpenAPI path serves both kinds.
   */
  async create(
    teamId: string,
    emailId: string,
    options: { expiresIn?: string; withReceived: boolean },
  ): Promise<CreatedShare> {
    const lifetime = shareLifetimeMs(options.expiresIn);
    const { source, id } = await this.find(teamId, emailId, options.withReceived);
    await this.deps.assertContentAvailable(teamId);
    const now = this.deps.clock.now();
    const { token, hash } = newShareToken();
    const expiresAt = new Date(now.getTime() + lifetime);
    await this.repository.insert({
      id: newId(),
      tokenHash: hash,
      teamId,
      emailId: id,
      source,
      createdAt: now,
      expiresAt,
    });
    return { emailId: id, url: `${this.deps.publicUrl()}/share/${token}`, expiresAt };
  }

  /** DELETE /emails/{id}/share: every live link of the email stops working; how many there were. */
  async revoke(teamId: string, emailId: string, withReceived: boolean): Promise<{ emailId: string; revoked: number }> {
    const { id } = await this.find(teamId, emailId, withReceived);
    return { emailId: id, revoked: await this.repository.revokeAll(teamId, id, this.deps.clock.now()) };
  }

  /** The share page: the email behind a live token. Unknown, revoked, expired: 404. */
  async open(token: string): Promise<SharedEmail> {
    const link = SHARE_TOKEN_PATTERN.test(token) ? await this.repository.findByHash(hashShareToken(token)) : undefined;
    if (!link || link.revokedAt || link.expiresAt.getTime() <= this.deps.clock.now().getTime())
      throw new NotFoundError('Share link not found or expired');
    const email = await this.loader(link.source)(link.teamId, link.emailId);
    if (!email) throw new NotFoundError('Share link not found or expired');
    await this.deps.assertContentAvailable(link.teamId);
    return email;
  }

  /** Retention: links past their expiry are deleted (they can never open again). */
  async purgeExpired(): Promise<number> {
    return this.repository.deleteExpired(this.deps.clock.now());
  }

  private async find(teamId: string, emailId: string, withReceived: boolean) {
    if (isUuid(emailId)) {
      const id = emailId.toLowerCase();
      if (await this.deps.sent(teamId, id)) return { source: 'sent' as ShareSource, id };
      if (withReceived && (await this.deps.received(teamId, id))) return { source: 'received' as ShareSource, id };
    }
    throw new NotFoundError('Email not found');
  }

  private loader(source: ShareSource): SharedEmailLoader {
    return source === 'sent' ? this.deps.sent : this.deps.received;
  }
}
