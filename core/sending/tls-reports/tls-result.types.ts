/**
 * One outbound TLS session's result, as RFC 8460 (SMTP TLS reporting) counts them: the MTA
 * records one per connection it opens (success, or the failure that stopped it), and the daily
 * report job aggregates them per policy into the report sent to the destination's `rua`.
 */

/** RFC 8460 4.4 policy types. */
export type TlsPolicyType = 'sts' | 'tlsa' | 'no-policy-found';

/** RFC 8460 4.3 result types (failures). */
export type TlsFailureType =
  | 'starttls-not-supported'
  | 'certificate-host-mismatch'
  | 'certificate-expired'
  | 'certificate-not-trusted'
  | 'validation-failure'
  | 'tlsa-invalid'
  | 'dnssec-invalid'
  | 'dane-required'
  | 'sts-policy-fetch-error'
  | 'sts-policy-invalid'
  | 'sts-webpki-invalid';

export type TlsSessionResult = {
  /** The recipient domain whose policy applied (RFC 8460 policy-domain). */
  policyDomain: string;
  policyType: TlsPolicyType;
  /** The policy as text lines: the MTA-STS policy file's lines, or the TLSA records; [] for no-policy-found. */
  policyString: string[];
  /** For sts: the policy's mx patterns (RFC 8460 mx-host); for tlsa: the MX host name. */
  mxHost: string | null;
  sendingIp: string | null;
  receivingIp: string | null;
  /** The MX host's name as connected to (receiving-mx-hostname). */
  receivingMxHostname: string | null;
  /** 'success', or the failure and a short human-readable detail (additional-information). */
  outcome: 'success' | { failure: TlsFailureType; detail: string };
  at: Date;
};

/**
 * Where the MTA hands each result. Recording must be cheap (the delivery path calls it once per
 * connection): implementations buffer in memory and write counts in batches.
 */
export interface TlsResultSink {
  record(result: TlsSessionResult): void;
}
