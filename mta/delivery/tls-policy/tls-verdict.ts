import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import type { TlsSessionResult } from '../../../core/sending/tls-reports/tls-result.types.js';
import type { MxTlsPolicy, TlsFailure } from './tls-policy.js';
import { matchTlsa } from './tlsa-match.js';

/** What a connection showed of its TLS, after the greeting and STARTTLS. */
export type TlsPeer = {
  secure: boolean;
  /** The presented chain, leaf first (DER). */
  chain: Buffer[];
  certificate: PeerCertificate | null;
  /** Whether the chain is trusted by the CAs the session was given (Node's verdict). */
  authorized: boolean;
  authorizationError: string | null;
};

const EXPIRED = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID']);

/** Whether a connection meets its MX policy; the failure in RFC 8460's terms when it does not. */
export function verifyPeer(policy: MxTlsPolicy, peer: TlsPeer, mxHost: string): TlsFailure | null {
  if (!peer.secure)
    return { failure: 'starttls-not-supported', detail: `${mxHost} did not offer or complete STARTTLS` };
  if (policy.require === 'dane') {
    if (policy.records.length === 0) return null;
    const verdict = matchTlsa(policy.records, peer.chain, mxHost);
    return verdict.ok ? null : { failure: 'validation-failure', detail: `DANE: ${verdict.detail}` };
  }
  if (policy.require === 'sts') {
    if (!peer.authorized) {
      const code = peer.authorizationError ?? 'unknown';
      if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
        return { failure: 'certificate-host-mismatch', detail: `${mxHost}: the certificate does not name it` };
      return EXPIRED.has(code)
        ? { failure: 'certificate-expired', detail: `${mxHost}: ${code}` }
        : { failure: 'certificate-not-trusted', detail: `${mxHost}: ${code}` };
    }
    const nameError = peer.certificate ? checkServerIdentity(mxHost, peer.certificate) : new Error('no certificate');
    if (nameError) return { failure: 'certificate-host-mismatch', detail: nameError.message };
  }
  return null;
}

/** One RFC 8460 session result for the sink. */
export function tlsResult(
  policy: MxTlsPolicy,
  at: { sendingIp: string; receivingIp: string | null; mxHost: string },
  failure: TlsFailure | null | undefined,
): TlsSessionResult {
  return {
    ...policy.report,
    sendingIp: at.sendingIp,
    receivingIp: at.receivingIp,
    receivingMxHostname: at.mxHost,
    outcome: failure ? { failure: failure.failure, detail: failure.detail } : 'success',
    at: new Date(),
  };
}

/** The peer chain as Node links it (issuerCertificate), leaf first, stopping at a self-signed root. */
export function chainOf(certificate: PeerCertificate | null): Buffer[] {
  const chain: Buffer[] = [];
  const seen = new Set<string>();
  let cert = certificate as (PeerCertificate & { issuerCertificate?: PeerCertificate }) | null;
  while (cert?.raw && !seen.has(cert.fingerprint256)) {
    seen.add(cert.fingerprint256);
    chain.push(cert.raw);
    cert = cert.issuerCertificate ?? null;
  }
  return chain;
}
