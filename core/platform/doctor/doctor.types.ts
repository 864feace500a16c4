import type { Config } from '../../../lib/config/config.schema.js';
import type { DnsLookup, LookupResult } from '../../../lib/dns/dns-resolver.js';
import type { Database } from '../../../db/connection.js';

export type CheckStatus = 'ok' | 'warn' | 'fail';

/** One finding of `mailroom doctor`: which check, about what (an IP, a domain, a file), and why. */
export type CheckResult = { check: string; subject: string; status: CheckStatus; detail: string };

/** PTR look-ups (the host names an address maps back to), as values like `DnsLookup`. */
export type PtrLookup = (address: string) => Promise<LookupResult<string>>;

export type DoctorDeps = {
  config: Config;
  lookup: DnsLookup;
  ptr: PtrLookup;
  /** Unset when the database could not be opened: the checks that read it report that instead. */
  db?: Database;
  /** Why `db` is unset, for the report. */
  dbProblem?: string;
  now: () => Date;
  dnsblZones: readonly string[];
  /**
   * Where this node's submission server listens, to talk to it as a client does (EHLO,
   * STARTTLS, AUTH offered); unset: no live check (the CLI always sets it).
   */
  submission?: { host: string; port: number; tlsPort: number | null };
  /** Longest wait for each step of those conversations (default 5 s). */
  smtpTimeoutMs?: number;
};

export const result = (check: string, subject: string, status: CheckStatus, detail: string): CheckResult => ({
  check,
  subject,
  status,
  detail,
});

const NOT_MADE = 'the check could not be made';

/** What a look-up that could not be answered means for a check: it could not be made, which is a failure. */
export const unanswered = (check: string, subject: string, name: string, error: string): CheckResult =>
  result(check, subject, 'fail', `could not look up ${name} (${error}): ${NOT_MADE}`);

/** A failure that is a look-up without an answer (try again later), not a wrong or missing record. */
export const wasUnanswered = (entry: CheckResult): boolean =>
  entry.status === 'fail' && entry.detail.endsWith(NOT_MADE);
