/** One row of an aggregate report: a source address and what the receiver saw of its mail. */
export type DmarcReportRow = {
  sourceIp: string;
  count: number;
  disposition: string;
  /** policy_evaluated: DKIM and SPF *aligned* results (pass | fail), what DMARC itself judged. */
  dkim: string;
  spf: string;
  headerFrom: string;
  envelopeFrom: string | null;
  /** auth_results: the raw DKIM and SPF checks, unaligned (domain, result, selector / scope). */
  authResults: {
    dkim: Array<{ domain: string; result: string; selector: string | null }>;
    spf: Array<{ domain: string; result: string; scope: string | null }>;
  };
};

/** The policy the sender published, as the receiver found it. */
export type DmarcPolicyPublished = {
  domain: string;
  adkim: string | null;
  aspf: string | null;
  p: string | null;
  sp: string | null;
  pct: number | null;
};

/** An RFC 7489 appendix C feedback document, read. */
export type ParsedDmarcReport = {
  orgName: string;
  email: string | null;
  reportId: string;
  dateBegin: Date;
  dateEnd: Date;
  policy: DmarcPolicyPublished;
  rows: DmarcReportRow[];
};

/** A stored report: parsed, or failed with the reason (kept so nothing vanishes without trace). */
export type DmarcReport = {
  id: string;
  teamId: string;
  domainId: string;
  status: 'parsed' | 'failed';
  error: string | null;
  orgName: string | null;
  email: string | null;
  reportId: string | null;
  dateBegin: Date | null;
  dateEnd: Date | null;
  policy: DmarcPolicyPublished | null;
  rowCount: number;
  messageCount: number;
  receivedAt: Date;
};

/** Limits applied to one report, from config.dmarcReports. */
export type DmarcLimits = {
  /** Largest compressed attachment (and message) accepted. */
  maxReportBytes: number;
  /** Largest XML document after decompression (a gzip or zip bomb stops here). */
  maxXmlBytes: number;
  /** Rows (<record> elements) read from one report. */
  maxRecords: number;
};

/** Why a report could not be read: recorded as a failed report, never thrown to the MX. */
export class DmarcReportError extends Error {
  override name = 'DmarcReportError';
}
