import { domainToASCII } from 'node:url';
import { parse } from 'tldts';

/**
 * Domain names no team may add: a public suffix (from the Public Suffix List that tldts ships,
 * no network; its private section included: nobody owns `github.io` as a whole, and a team
 * holding it would sign for every site under it), and the appliance's own host names and
 * everything under them (the mailbox simulator, the MTA's host name and HELO names, the inbound
 * MX, the tracking host), which would let a team publish records for, or be trusted as, the
 * appliance itself. Reserved test names (`.test`, `example.com`, `localhost`) are not on the
 * list and stay allowed (or, for a bare `localhost`, malformed: one label is not a domain).
 */
export class ReservedDomainNames {
  private readonly applianceHosts: string[];

  constructor(applianceHosts: string[]) {
    this.applianceHosts = [
      ...new Set(applianceHosts.map((host) => host.trim().toLowerCase().replace(/\.$/, '')).filter(Boolean)),
    ];
  }

  /** Why `name` (normalized ASCII, lower case, no trailing dot) cannot be added, or undefined when it can. */
  reason(name: string): string | undefined {
    if (isListedSuffix(name)) return `${name} is a public suffix: add a domain registered under it`;
    const host = this.applianceHosts.find((own) => name === own || name.endsWith(`.${own}`));
    if (host)
      return name === host
        ? `${name} is this appliance's own host name`
        : `${name} is under ${host}, this appliance's own host name`;
    return undefined;
  }

  /**
   * For an input the domain-name rules refuse: a bare top-level suffix (`com`, `рф`, `com.`) is
   * well-formed but on the list, so it is refused as a public suffix rather than as malformed.
   */
  reasonForLabel(input: string): string | undefined {
    const label = domainToASCII(input.trim().replace(/\.$/, '')).toLowerCase();
    if (!label || label.includes('.') || !/^[a-z0-9-]{1,63}$/.test(label)) return undefined;
    return isListedSuffix(label) ? `${label} is a public suffix: add a domain registered under it` : undefined;
  }
}

/** `name` is itself a rule of the list (ICANN or private), not merely the default `*` rule. */
function isListedSuffix(name: string): boolean {
  const parsed = parse(name, { allowPrivateDomains: true });
  return parsed.publicSuffix === name && (parsed.isIcann === true || parsed.isPrivate === true);
}
