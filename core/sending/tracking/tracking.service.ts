import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';
import type { Domain } from '../domains/domain.types.js';
import type { EmailTransitionExtra, EmailTransitions } from '../emails/email-transitions.js';
import { instrumentHtml } from './html-instrumenter.js';
import { TrackingHosts } from './tracking-hosts.js';
import { TrackingRepository } from './tracking.repository.js';
import type { TrackingTokens } from './tracking-tokens.js';

export type TrackingServiceDeps = {
  knex: Knex;
  clock: Clock;
  emailTransitions: EmailTransitions;
  tokens: TrackingTokens;
  /** Scheme of the tracking links written into messages (http only for development and tests). */
  scheme: 'https' | 'http';
  /** The configured tracking host (CNAME target of every tracking subdomain). */
  trackingHost: string;
  publicUrl: () => string;
};

/** Who opened or clicked, as the tracking endpoint saw them. */
export type Visitor = { ip: string | null; userAgent: string | null };

/** User agents are stored in events as given, up to this many characters. */
const MAX_USER_AGENT = 1024;

/**
 * Open and click tracking: instruments the HTML of accepted mail for domains with tracking on,
 * and records `email.opened` / `email.clicked` when a pixel or a link is fetched. The token is
 * the only credential; a click redirects only to the URL signed into its token.
 */
export class TrackingService {
  private readonly hosts: TrackingHosts;

  constructor(private readonly deps: TrackingServiceDeps) {
    this.hosts = new TrackingHosts({
      repository: new TrackingRepository(deps.knex),
      trackingHost: deps.trackingHost.toLowerCase(),
      publicUrl: deps.publicUrl,
      now: () => deps.clock.now().getTime(),
    });
  }

  /** The HTML as sent: links rewritten with click tracking on, the pixel added with open tracking on. */
  instrument(
    html: string,
    emailId: string,
    domain: Pick<Domain, 'name' | 'trackingSubdomain' | 'openTracking' | 'clickTracking'>,
  ): string {
    if (!domain.openTracking && !domain.clickTracking) return html;
    const { tokens } = this.deps;
    return instrumentHtml(html, {
      base: `${this.deps.scheme}://${domain.trackingSubdomain}.${domain.name}`.toLowerCase(),
      openToken: domain.openTracking ? tokens.open(emailId) : undefined,
      clickToken: domain.clickTracking ? (url) => tokens.click(emailId, url) : undefined,
    });
  }

  async isTrackingHost(hostname: string): Promise<boolean> {
    return this.hosts.isTrackingHost(hostname);
  }

  /** The pixel was fetched: true when an open was recorded (false for a bad token or a deleted email). */
  async open(token: string, visitor: Visitor): Promise<boolean> {
    const verified = this.deps.tokens.verify(token);
    if (verified?.kind !== 'open') return false;
    const timestamp = this.deps.clock.now().toISOString();
    return this.record(verified.emailId, 'email.opened', {
      open: { ipAddress: visitor.ip, timestamp, userAgent: userAgent(visitor) },
    });
  }

  /**
   * A link was followed: the URL to redirect to, or null (bad token, deleted email). Deleting
   * an email (retention, an abusive team) also stops its links from redirecting anywhere.
   */
  async click(token: string, visitor: Visitor): Promise<string | null> {
    const verified = this.deps.tokens.verify(token);
    if (verified?.kind !== 'click') return null;
    const timestamp = this.deps.clock.now().toISOString();
    const click = { ipAddress: visitor.ip, link: verified.url, timestamp, userAgent: userAgent(visitor) };
    return (await this.record(verified.emailId, 'email.clicked', { click })) ? verified.url : null;
  }

  /** The event and the email's last_event move together, or neither (EmailTransitions). */
  private async record(
    emailId: string,
    type: 'email.opened' | 'email.clicked',
    extra: EmailTransitionExtra,
  ): Promise<boolean> {
    return this.deps.knex.transaction(async (trx) => {
      const email = await new TrackingRepository(trx).emailById(emailId);
      if (!email) return false;
      await this.deps.emailTransitions.record(trx, email, type, extra);
      return true;
    });
  }
}

const userAgent = (visitor: Visitor) => (visitor.userAgent ? visitor.userAgent.slice(0, MAX_USER_AGENT) : null);
