import type { TlsFailureType, TlsPolicyType } from '../../../core/sending/tls-reports/tls-result.types.js';
import type { StsState } from './mta-sts-cache.js';
import { mxAllowed } from './mta-sts-policy.js';
import type { TlsaLookup } from './tlsa-lookup.js';
import { tlsaText, usableTlsa, type TlsaRecord } from './tlsa-match.js';

export type TlsFailure = { failure: TlsFailureType; detail: string };

/** How a destination's policy is named in TLS reports (RFC 8460 4.4). */
export type PolicyReport = {
  policyDomain: string;
  policyType: TlsPolicyType;
  policyString: string[];
  mxHost: string | null;
};

/** What a connection to one MX host must meet. */
export type MxTlsPolicy = {
  /** 'none': opportunistic STARTTLS as before; 'sts': WebPKI certificate for the MX name; 'dane': TLSA. */
  require: 'none' | 'sts' | 'dane';
  /** A failure stops delivery to this MX (enforce, DANE); otherwise it is only reported (testing). */
  enforce: boolean;
  /** DANE: the usable records (empty: TLS mandatory but unauthenticated, RFC 7672 2.2). */
  records: TlsaRecord[];
  /** Do not connect at all: the MX is outside an enforced policy, or its TLSA state is unknown. */
  refused?: TlsFailure;
  /** Known before connecting, reported, not enforced (testing mode, a policy that could not be fetched). */
  noted?: TlsFailure;
  report: PolicyReport;
  /** Connections are shared only between uses under the same policy. */
  key: string;
};

/** The policies that apply to one destination domain: MTA-STS once, TLSA per MX host. */
export class DestinationTls {
  constructor(
    private readonly domain: string,
    private readonly sts: StsState,
    private readonly tlsa: TlsaLookup | null,
  ) {}

  private readonly byMx = new Map<string, Promise<MxTlsPolicy>>();

  /** DANE first for an MX with secure TLSA records (RFC 8461 2), then MTA-STS, then nothing. */
  forMx(mxHost: string): Promise<MxTlsPolicy> {
    const name = mxHost.toLowerCase();
    let policy = this.byMx.get(name);
    if (!policy) this.byMx.set(name, (policy = this.decide(name)));
    return policy;
  }

  private async decide(mxHost: string): Promise<MxTlsPolicy> {
    if (this.tlsa) {
      const found = await this.tlsa(mxHost);
      const report: PolicyReport = { policyDomain: this.domain, policyType: 'tlsa', policyString: [], mxHost };
      if (found.kind === 'temporary')
        return {
          ...this.opportunistic(),
          report,
          refused: { failure: 'dnssec-invalid', detail: found.detail },
        };
      if (found.kind === 'secure') {
        const records = usableTlsa(found.records);
        report.policyString = found.records.map(tlsaText);
        return { require: 'dane', enforce: true, records, report, key: `dane:${report.policyString.join(',')}` };
      }
    }
    return this.forStsMx(mxHost);
  }

  private forStsMx(mxHost: string): MxTlsPolicy {
    const sts = this.sts;
    if (sts.kind === 'none') return this.opportunistic();
    if (sts.kind === 'unavailable')
      return {
        ...this.opportunistic(),
        report: { policyDomain: this.domain, policyType: 'sts', policyString: [], mxHost: null },
        noted: { failure: sts.failure, detail: sts.detail },
      };
    const { policy } = sts;
    const report: PolicyReport = {
      policyDomain: this.domain,
      policyType: 'sts',
      policyString: policy.lines,
      mxHost: policy.mx.join(' '),
    };
    if (policy.mode === 'none') return { ...this.opportunistic(), report };
    const enforce = policy.mode === 'enforce';
    const outside: TlsFailure | undefined = mxAllowed(policy, mxHost)
      ? undefined
      : { failure: 'validation-failure', detail: `${mxHost} does not match the MTA-STS policy's mx patterns` };
    return {
      require: 'sts',
      enforce,
      records: [],
      report,
      key: `sts:${policy.mode}:${sts.id}`,
      ...(outside ? (enforce ? { refused: outside } : { noted: outside }) : {}),
    };
  }

  private opportunistic(): MxTlsPolicy {
    return {
      require: 'none',
      enforce: false,
      records: [],
      report: { policyDomain: this.domain, policyType: 'no-policy-found', policyString: [], mxHost: null },
      key: '',
    };
  }
}

/**
 * The outbound TLS policy: MTA-STS policies (through their cache) and DANE (when validating
 * resolvers are configured). A sending domain with `tls: enforced` keeps its own rule: it is
 * stricter about TLS than an unknown destination and the operator chose it, so it wins.
 */
export class TlsPolicyResolver {
  constructor(
    private readonly deps: {
      stsState: ((domain: string) => Promise<StsState>) | null;
      tlsa: TlsaLookup | null;
    },
  ) {}

  async forDestination(domain: string, sendingTls: 'opportunistic' | 'enforced'): Promise<DestinationTls> {
    const name = domain.toLowerCase();
    if (sendingTls === 'enforced') return new DestinationTls(name, { kind: 'none' }, null);
    const sts = this.deps.stsState ? await this.deps.stsState(name) : { kind: 'none' as const };
    return new DestinationTls(name, sts, this.deps.tlsa);
  }
}
