import { request } from 'node:https';
import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import type { DnsLookup } from '../../../lib/dns/dns-resolver.js';
import type { AddressPolicy } from '../../../lib/net/address-policy.js';

/** A report as mail (RFC 8460 5.3), handed to the appliance's own send path. */
export type TlsReportMail = {
  to: string;
  subject: string;
  headers: Record<string, string>;
  text: string;
  attachment: { filename: string; content: Buffer; contentType: string };
};

export type ReportDeliveryDeps = {
  lookup: DnsLookup;
  /** Which addresses an https: destination may resolve to. */
  policy: AddressPolicy;
  ca?: string;
  timeoutMs: number;
  /** Absent when no sender is configured: mailto: destinations then fail with that reason. */
  sendMail?: (mail: TlsReportMail) => Promise<void>;
};

export type DeliveryOutcome = { ok: true } | { ok: false; error: string };

export type ReportParcel = {
  gzipped: Buffer;
  /** Mail fields (RFC 8460 5.3): subject and headers come from the report's identity. */
  mail: Omit<TlsReportMail, 'to'>;
};

/** Sends one gzipped report to one rua URI: https: POST (RFC 8460 5.4), mailto: mail (5.3). */
export async function deliverReport(
  deps: ReportDeliveryDeps,
  uri: string,
  parcel: ReportParcel,
): Promise<DeliveryOutcome> {
  if (/^mailto:/i.test(uri)) {
    if (!deps.sendMail)
      return {
        ok: false,
        error: 'no report sender: set tlsReports.mailFrom (or accounts.mailFrom) and accounts.mailTeamId',
      };
    const to = decodeURIComponent(uri.slice('mailto:'.length).split('?')[0]!);
    try {
      await deps.sendMail({ ...parcel.mail, to });
      return { ok: true };
    } catch (err) {
      return { ok: false, error: `not queued: ${(err as Error).message}` };
    }
  }
  return post(deps, uri, parcel.gzipped);
}

/** The host resolved and checked first, the connection made to the checked address (no rebinding). */
async function post(deps: ReportDeliveryDeps, uri: string, body: Buffer): Promise<DeliveryOutcome> {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return { ok: false, error: 'is not a URL' };
  }
  if (url.protocol !== 'https:') return { ok: false, error: 'only https: and mailto: destinations are reported to' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let address = host;
  if (!isIP(host)) {
    const found = await deps.lookup.addresses(host);
    if (found.kind !== 'found')
      return { ok: false, error: found.kind === 'none' ? `${host} does not resolve` : `${host}: ${found.error}` };
    address = found.values[0]!;
  }
  if (!deps.policy.permits(address))
    return { ok: false, error: `${host} resolves to ${address}, not a public address` };
  return new Promise((resolve) => {
    const client = request(
      {
        host: address,
        port: url.port ? Number(url.port) : 443,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: {
          host: url.host,
          'content-type': 'application/tlsrpt+gzip',
          'content-length': String(body.length),
        },
        servername: isIP(host) ? undefined : host,
        // Extra CAs trusted beside the public ones, not instead of them.
        ca: deps.ca ? [...rootCertificates, deps.ca] : undefined,
        timeout: deps.timeoutMs,
      },
      (res) => {
        res.resume();
        const status = res.statusCode ?? 0;
        resolve(status >= 200 && status < 300 ? { ok: true } : { ok: false, error: `answered ${status}` });
      },
    );
    client.on('timeout', () => client.destroy(new Error(`timed out after ${deps.timeoutMs} ms`)));
    client.on('error', (err) => resolve({ ok: false, error: err.message }));
    client.end(body);
  });
}
