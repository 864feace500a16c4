import type { Config } from '../../../lib/config/config.schema.js';

/**
 * TLSRPT DNS records (RFC 8460 3): `_smtp._tls.<domain> TXT "v=TLSRPTv1; rua=<uri>[,<uri>]"`,
 * where each rua URI is `mailto:` or `https:`. Parsing for the destinations we report to, and
 * the record we publish for our own domains.
 */

export const TLSRPT_PREFIX = '_smtp._tls';

export type TlsRptRecord = { rua: string[] };

export type TlsRptParse = { ok: true; record: TlsRptRecord } | { ok: false; problem: string };

/** RFC 8460 3: the version first, `rua` required, URIs comma-separated (`!` size limits ignored). */
export function parseTlsRpt(text: string): TlsRptParse {
  const fields = text
    .split(';')
    .map((field) => field.trim())
    .filter((field) => field.length > 0);
  if (fields[0] !== 'v=TLSRPTv1') return { ok: false, problem: 'does not start with v=TLSRPTv1' };
  const rua = fields.find((field) => /^rua\s*=/i.test(field));
  if (!rua) return { ok: false, problem: 'has no rua=' };
  const uris = rua
    .replace(/^rua\s*=\s*/i, '')
    .split(',')
    .map((uri) => uri.trim().replace(/!\d+[kmgt]?$/i, ''))
    .filter((uri) => uri.length > 0);
  const bad = uris.find((uri) => !isReportUri(uri));
  if (uris.length === 0) return { ok: false, problem: 'rua= names no address' };
  if (bad) return { ok: false, problem: `rua= has ${bad}, neither a mailto: address nor an https: URL` };
  return { ok: true, record: { rua: uris } };
}

function isReportUri(uri: string): boolean {
  if (/^mailto:[^@\s]+@[^@\s]+\.[^@\s]+$/i.test(uri)) return true;
  try {
    return new URL(uri).protocol === 'https:';
  } catch {
    return false;
  }
}

/** The TLSRPT records among a name's TXT strings (others, such as SPF by mistake, are not ours). */
export function tlsRptCandidates(values: string[]): string[] {
  return values.filter((value) => /^v=TLSRPTv1\s*(;|$)/i.test(value.trim()));
}

/** What our own domains publish: reports about mail to them go to the operator's mailbox. */
export function ownTlsRptValue(ruaAddress: string): string {
  return `v=TLSRPTv1; rua=mailto:${ruaAddress}`;
}

/** The mailbox our domains' TLSRPT records name (tlsReports.ruaAddress, else tlsrpt@<mta.hostname>). */
export function tlsRptRuaAddress(config: Config): string {
  return config.tlsReports.ruaAddress ?? `tlsrpt@${config.mta.hostname.toLowerCase()}`;
}
