import type { DnsLookup } from '../../../lib/dns/dns-resolver.js';
import type { ProviderLimits, ProviderRule } from './shaping.types.js';

/** The provider a destination belongs to, and the limits that apply to it. */
export type Provider = {
  /** The rule's name, or `domain:<recipient domain>` when no rule matches (it counts alone). */
  key: string;
  /** The rule's name, or null for the generic default. */
  name: string | null;
  limits: ProviderLimits;
};

/**
 * Finds a destination's provider by the names of its MX hosts: a rule matches when an MX host
 * is one of its suffixes or ends with `.suffix`. Rules from the configuration replace built-in
 * ones of the same name and are tried first. A failed look-up gives the generic default (the
 * delivery that follows resolves the MX again and defers on its own failure).
 */
export class ProviderMatcher {
  private readonly rules: ProviderRule[];

  constructor(
    builtIn: ProviderRule[],
    configured: ProviderRule[],
    private readonly defaults: ProviderLimits,
    private readonly lookup: DnsLookup,
  ) {
    const names = new Set(configured.map((rule) => rule.name));
    this.rules = [...configured, ...builtIn.filter((rule) => !names.has(rule.name))];
  }

  all(): readonly ProviderRule[] {
    return this.rules;
  }

  /** `lookup`: the caller's own resolver when it has a caching one (the mta's). */
  async providerOf(domain: string, lookup: DnsLookup = this.lookup): Promise<Provider> {
    const mx = await lookup.mx(domain);
    const hosts = mx.kind === 'found' ? mx.values.map((record) => record.exchange.toLowerCase()) : [];
    return this.forHosts(domain, hosts);
  }

  /** The rule for a destination whose MX hosts are `hosts` (the domain itself when none). */
  forHosts(domain: string, hosts: string[]): Provider {
    const names = hosts.length > 0 ? hosts : [domain.toLowerCase()];
    for (const rule of this.rules) {
      if (names.some((host) => rule.mx.some((suffix) => host === suffix || host.endsWith(`.${suffix}`))))
        return { key: rule.name, name: rule.name, limits: rule };
    }
    return { key: `domain:${domain.toLowerCase()}`, name: null, limits: this.defaults };
  }
}
