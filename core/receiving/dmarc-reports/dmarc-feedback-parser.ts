import { XMLParser } from 'fast-xml-parser';
import { isIP } from 'node:net';
import {
  DmarcReportError,
  type DmarcPolicyPublished,
  type DmarcReportRow,
  type ParsedDmarcReport,
} from './dmarc-report.types.js';

type Node = Record<string, unknown>;

// Elements that may repeat (RFC 7489 appendix C); everything else is read as one value. The
// dkim and spf of auth_results repeat; those of policy_evaluated are one result each.
const REPEATED = new Set(['feedback.record', 'feedback.record.auth_results.dkim', 'feedback.record.auth_results.spf']);

const parser = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: true,
  removeNSPrefix: true,
  // No DOCTYPE entities: a report has none, and expanding them is how XML bombs work.
  processEntities: false,
  isArray: (_name, jpath) => REPEATED.has(String(jpath)),
});

const node = (value: unknown): Node =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Node) : {};
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]);

function text(value: unknown): string | null {
  if (typeof value === 'string') return value.trim() || null;
  if (typeof value === 'number') return String(value);
  const inner = node(value)['#text'];
  return typeof inner === 'string' ? inner.trim() || null : null;
}

function required(value: unknown, what: string): string {
  const found = text(value);
  if (!found) throw new DmarcReportError(`the report has no ${what}`);
  return found;
}

function epoch(value: unknown, what: string): Date {
  const seconds = Number(required(value, what));
  if (!Number.isFinite(seconds) || seconds < 0) throw new DmarcReportError(`the report's ${what} is not a timestamp`);
  return new Date(seconds * 1000);
}

const lower = (value: unknown, fallback: string) => (text(value) ?? fallback).toLowerCase();

function policyOf(published: Node): DmarcPolicyPublished {
  const pct = text(published.pct);
  return {
    domain: required(published.domain, 'policy_published domain').toLowerCase(),
    adkim: text(published.adkim),
    aspf: text(published.aspf),
    p: text(published.p),
    sp: text(published.sp),
    pct: pct !== null && /^\d+$/.test(pct) ? Number(pct) : null,
  };
}

function rowOf(record: Node): DmarcReportRow {
  const row = node(record.row);
  const evaluated = node(row.policy_evaluated);
  const identifiers = node(record.identifiers);
  const auth = node(record.auth_results);
  const sourceIp = required(row.source_ip, 'record source_ip');
  if (isIP(sourceIp) === 0)
    throw new DmarcReportError(`the record source_ip ${sourceIp.slice(0, 64)} is not an address`);
  const count = Number(required(row.count, 'record count'));
  if (!Number.isSafeInteger(count) || count < 0) throw new DmarcReportError('a record count is not a whole number');
  return {
    sourceIp,
    count,
    disposition: lower(evaluated.disposition, 'none'),
    dkim: lower(evaluated.dkim, 'fail'),
    spf: lower(evaluated.spf, 'fail'),
    headerFrom: lower(identifiers.header_from, ''),
    envelopeFrom: text(identifiers.envelope_from)?.toLowerCase() ?? null,
    authResults: {
      dkim: list(auth.dkim).map((entry) => {
        const e = node(entry);
        return { domain: lower(e.domain, ''), result: lower(e.result, 'none'), selector: text(e.selector) };
      }),
      spf: list(auth.spf).map((entry) => {
        const e = node(entry);
        return { domain: lower(e.domain, ''), result: lower(e.result, 'none'), scope: text(e.scope) };
      }),
    },
  };
}

/**
 * Reads an RFC 7489 appendix C aggregate report. Anything missing that the summary needs (the
 * report id, the date range, the published domain, each row's address and count) is an error;
 * optional parts are null. More than `maxRecords` rows is an error, not a truncation: a partial
 * report would silently under-count.
 */
export function parseDmarcFeedback(xml: string, maxRecords: number): ParsedDmarcReport {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml.slice(0, 4096))) throw new DmarcReportError('the report declares a DOCTYPE');
  let document: Node;
  try {
    document = node(parser.parse(xml));
  } catch (err) {
    throw new DmarcReportError(`the report is not well-formed XML: ${(err as Error).message.split('\n')[0]}`);
  }
  const feedback = node(document.feedback);
  if (Object.keys(feedback).length === 0) throw new DmarcReportError('the document is not a DMARC <feedback> report');
  const metadata = node(feedback.report_metadata);
  const range = node(metadata.date_range);
  const records = list(feedback.record);
  if (records.length > maxRecords)
    throw new DmarcReportError(`the report has ${records.length} records, more than the ${maxRecords} accepted`);
  return {
    orgName: required(metadata.org_name, 'org_name'),
    email: text(metadata.email),
    reportId: required(metadata.report_id, 'report_id'),
    dateBegin: epoch(range.begin, 'date_range begin'),
    dateEnd: epoch(range.end, 'date_range end'),
    policy: policyOf(node(feedback.policy_published)),
    rows: records.map((record) => rowOf(node(record))),
  };
}
