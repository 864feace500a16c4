import type { TlsResultSink } from '../../../core/sending/tls-reports/tls-result.types.js';
import { webPkiRoots } from './mta-sts-fetcher.js';
import { DestinationTls, type MxTlsPolicy, type TlsFailure, type TlsPolicyResolver } from './tls-policy.js';
import { tlsResult, verifyPeer, type TlsPeer } from './tls-verdict.js';

/** Where one connection goes: for the TLS report and the transcript. */
export type TlsTarget = { mxHost: string; address: string; egressIp: string };

/**
 * What a session under a destination policy does (smtp-session's `check`): STARTTLS required
 * or not, the CAs Node judges the chain by, and, once connected (after STARTTLS), `verify`,
 * which records the result and returns why the connection must not be used (or null).
 */
export type SessionCheck = {
  key: string;
  requireTls: boolean;
  ca?: string[];
  verify(peer: TlsPeer): string | null;
  /** The connection failed to open (a missing STARTTLS under a policy is a TLS result too). */
  openFailed(error: string): void;
};

/**
 * The delivery loop's side of the outbound TLS policy: which MX hosts may be tried, what a
 * connection must show after STARTTLS, and one RFC 8460 result per connection for the report
 * sink. With neither a policy nor a sink configured it does nothing (`forDestination` is null).
 */
export class TlsGate {
  private readonly extraCa: string[] | undefined;

  constructor(
    private readonly resolver: TlsPolicyResolver | null,
    private readonly sink: TlsResultSink | undefined,
    ca?: string,
  ) {
    this.extraCa = webPkiRoots(ca);
  }

  async forDestination(domain: string, sendingTls: 'opportunistic' | 'enforced'): Promise<DestinationTls | null> {
    if (this.resolver) return this.resolver.forDestination(domain, sendingTls);
    return this.sink ? new DestinationTls(domain.toLowerCase(), { kind: 'none' }, null) : null;
  }

  /** The session options for one connection under `policy` (every connection opened with it is checked and recorded). */
  sessionCheck(policy: MxTlsPolicy | undefined, target: TlsTarget): SessionCheck | undefined {
    // No policy and nowhere to report: the session is as it always was.
    if (!policy || (policy.require === 'none' && !this.sink)) return undefined;
    return {
      key: policy.key,
      requireTls: policy.enforce,
      ...(policy.require === 'sts' && this.extraCa ? { ca: this.extraCa } : {}),
      verify: (peer) => this.opened(policy, peer, target),
      openFailed: (error) => this.openFailed(policy, error, target),
    };
  }

  /** Before connecting: why this MX must not be tried (recorded), or null. */
  refused(policy: MxTlsPolicy | undefined, target: TlsTarget): string | null {
    if (!policy?.refused) return null;
    this.record(policy, target, policy.refused);
    return this.message(policy.refused);
  }

  private openFailed(policy: MxTlsPolicy, error: string, target: TlsTarget): void {
    if (!/ETLS|STARTTLS|TLS|SSL|certificate/i.test(error)) return;
    this.record(policy, target, {
      failure: /STARTTLS/i.test(error) ? 'starttls-not-supported' : 'validation-failure',
      detail: error,
    });
  }

  /**
   * After the greeting and STARTTLS: records the result; returns why the connection must not be
   * used (an enforced policy failed), or null (passed, or failures only reported).
   */
  private opened(policy: MxTlsPolicy, peer: TlsPeer, target: TlsTarget): string | null {
    let failure = verifyPeer(policy, peer, target.mxHost);
    // Without a policy, plain text is no failure: opportunistic TLS is all that was promised.
    if (policy.require === 'none' && failure?.failure === 'starttls-not-supported') failure = null;
    failure ??= policy.noted ?? null;
    this.record(policy, target, failure);
    return policy.enforce && failure ? this.message(failure) : null;
  }

  private record(policy: MxTlsPolicy, target: TlsTarget, failure: TlsFailure | null | undefined): void {
    this.sink?.record(
      tlsResult(policy, { sendingIp: target.egressIp, receivingIp: target.address, mxHost: target.mxHost }, failure),
    );
  }

  private message(failure: TlsFailure): string {
    return `TLS policy: ${failure.failure}: ${failure.detail}`;
  }
}
