import type { Domain } from '../sending/domains/domain.types.js';
import { receivingName } from '../sending/domains/receiving-name.js';
import { domainIdOfReportAddress, type DmarcAddressing } from './dmarc-reports/dmarc-address.js';

/** Where one envelope recipient goes, decided at RCPT and again when the message is stored. */
export type RecipientRoute =
  | { kind: 'mailbox'; address: string; teamIds: string[] }
  | { kind: 'bounce'; address: string; emailId: string }
  | { kind: 'feedback'; address: string }
  /** A broadcast's mailto unsubscribe address (`u+<token>@<return-path host>`). */
  | { kind: 'unsubscribe'; address: string; localPart: string }
  /** A domain's DMARC aggregate report address (`<localPart>+<domain id>@<mx host>`). */
  | { kind: 'dmarc'; address: string; domainId: string; teamId: string; name: string; zone: string }
  | { kind: 'unknown'; address: string };

export type RecipientLookups = {
  domainsNamed(name: string): Promise<readonly Domain[]>;
  /** The domain an email was sent from, when the email exists. */
  domainOfEmail(emailId: string): Promise<Domain | undefined>;
  /** A domain by id (DMARC report addresses name one); without it no report address is accepted. */
  domainById?(id: string): Promise<Domain | undefined>;
};

const VERP_LOCAL_PART = /^bounces\+([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;
const UNSUBSCRIBE_LOCAL_PART = /^u\+[a-z2-7]{60}$/i;

/** Receiving is on and its MX record was found pointing at us. */
const receives = (domain: Domain) => domain.receivingEnabled && domain.recordStatuses.receiving_mx === 'verified';

/**
 * Who the inbound MX accepts mail for: addresses on a receiving domain that is enabled and
 * verified (every team that has it), the VERP return paths of our own emails
 * (`bounces+<email id>@<return-path label>.<domain>`), the mailto unsubscribe addresses of
 * broadcasts at the same return-path hosts (`u+<signed token>@...`, checked when the message
 * is taken in), the feedback-loop addresses, and each domain's DMARC aggregate report address. Anything else is unknown and refused at RCPT, so nothing is accepted and bounced later.
 */
export class InboundRecipients {
  private readonly feedback: Set<string>;

  constructor(
    private readonly lookups: RecipientLookups,
    feedbackAddresses: string[],
    private readonly dmarc?: DmarcAddressing,
  ) {
    this.feedback = new Set(feedbackAddresses.map((address) => address.toLowerCase()));
  }

  async route(recipient: string): Promise<RecipientRoute> {
    const address = recipient.trim();
    const at = address.lastIndexOf('@');
    if (at <= 0) return { kind: 'unknown', address };
    const local = address.slice(0, at);
    const host = address
      .slice(at + 1)
      .toLowerCase()
      .replace(/\.$/, '');
    if (this.feedback.has(`${local.toLowerCase()}@${host}`)) return { kind: 'feedback', address };
    const verp = VERP_LOCAL_PART.exec(local);
    if (verp) {
      const emailId = verp[1]!.toLowerCase();
      const domain = await this.lookups.domainOfEmail(emailId);
      if (domain && `${domain.customReturnPath}.${domain.name}` === host) return { kind: 'bounce', address, emailId };
    }
    const dmarc = await this.dmarcRoute(address, local, host);
    if (dmarc) return dmarc;
    if (UNSUBSCRIBE_LOCAL_PART.test(local) && (await this.isReturnPathHost(host)))
      return { kind: 'unsubscribe', address, localPart: local };
    const teamIds = await this.teamsReceivingAt(host);
    return teamIds.length > 0 ? { kind: 'mailbox', address, teamIds } : { kind: 'unknown', address };
  }

  /** A report address of a domain that exists (a deleted domain's reports are refused at RCPT). */
  private async dmarcRoute(address: string, local: string, host: string): Promise<RecipientRoute | null> {
    const domainId = this.dmarc ? domainIdOfReportAddress(this.dmarc, local, host) : null;
    const domain = domainId ? await this.lookups.domainById?.(domainId) : undefined;
    if (!domain) return null;
    return { kind: 'dmarc', address, domainId: domain.id, teamId: domain.teamId, name: domain.name, zone: domain.zone };
  }

  /** `host` is `<return-path label>.<domain>` of a domain some team has. */
  private async isReturnPathHost(host: string): Promise<boolean> {
    const dot = host.indexOf('.');
    if (dot <= 0) return false;
    const label = host.slice(0, dot);
    return (await this.lookups.domainsNamed(host.slice(dot + 1))).some((d) => d.customReturnPath === label);
  }

  /** Teams with a receiving domain whose receiving name is `host` (`@` on host, or a label under its parent). */
  private async teamsReceivingAt(host: string): Promise<string[]> {
    const dot = host.indexOf('.');
    const parent = dot > 0 ? host.slice(dot + 1) : null;
    const candidates = [
      ...(await this.lookups.domainsNamed(host)),
      ...(parent ? await this.lookups.domainsNamed(parent) : []),
    ];
    const teams = candidates
      .filter((domain) => receivingName(domain) === host && receives(domain))
      .map((d) => d.teamId);
    return [...new Set(teams)];
  }
}
