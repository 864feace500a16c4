import { ForbiddenValidationError } from '../../../lib/errors.js';
import { sandboxWayOut } from '../../platform/teams/sending-unlock.js';
import type { Region, Team, TeamMember } from '../../platform/teams/team.types.js';
import type { Domain } from './domain.types.js';
import { sendingStatus } from './sending-status.js';

export type SandboxContext = {
  team: Team;
  teamDomains: Domain[];
  members: TeamMember[];
  simulatorDomain: string;
};

const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase();
const withinDomain = (host: string, domain: string) => host === domain || host.endsWith(`.${domain}`);

/**
 * The sandbox rule. In a region still in the team's sandbox, mail may go only to verified
 * identities (the team's members), the mailbox simulator, and addresses on a domain the team
 * has verified, subdomains included. Anything else is 403 validation_error naming the first
 * refused recipient, the region and what is allowed, and the way out (an operator's `mailroom team
 * set-tier`: no payment provider here). The send path calls this before accepting.
 */
export function assertSandboxAllows(context: SandboxContext, region: Region, recipients: string[]): void {
  if (!sendingStatus(context.team).sandbox_regions.includes(region)) return;
  const identities = new Set(context.members.map((member) => member.email.toLowerCase()));
  const verifiedDomains = context.teamDomains.filter((d) => d.status === 'verified').map((d) => d.name);
  const allowed = (address: string) => {
    const host = domainOf(address);
    return (
      identities.has(address.toLowerCase()) ||
      withinDomain(host, context.simulatorDomain) ||
      verifiedDomains.some((domain) => withinDomain(host, domain))
    );
  };
  const refused = recipients.find((recipient) => !allowed(recipient));
  if (refused) {
    throw new ForbiddenValidationError(
      `${region} is in the sending sandbox for this team: ${refused} is not a verified identity, the simulator or on a verified domain; ${sandboxWayOut(context.team)}`,
      {
        details: { recipient: refused, region, allowed: ['verified_identity', 'verified_domain', 'simulator'] },
      },
    );
  }
}
