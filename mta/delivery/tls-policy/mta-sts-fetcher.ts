import { request } from 'node:https';
import { rootCertificates } from 'node:tls';
import type { DnsLookup } from '../../../lib/dns/dns-resolver.js';

/** RFC 8461 3.3 leaves the limit to the sender; 64 KiB is what it suggests as enough. */
const MAX_POLICY_BYTES = 64 * 1024;

export type FetchResult =
  | { kind: 'fetched'; text: string }
  /** RFC 8460 names: the host could not be reached or answered wrongly, or its certificate failed. */
  | { kind: 'failed'; failure: 'sts-policy-fetch-error' | 'sts-webpki-invalid'; detail: string };

export type StsFetcher = (domain: string) => Promise<FetchResult>;

/** Trust for policy hosts and MX hosts under MTA-STS: the system's CAs plus the operator's extra ones. */
export function webPkiRoots(extraCa?: string): string[] | undefined {
  return extraCa ? [...rootCertificates, extraCa] : undefined;
}

/**
 * Fetches `https://mta-sts.<domain>/.well-known/mta-sts.txt` (RFC 8461 3.3): the name is
 * resolved through the MTA's own resolver (so tests declare it), the certificate must be valid
 * for that name and chain to a trusted CA, redirects are not followed, only a 200 with
 * text/plain counts, and the body is bounded.
 */
export function createStsFetcher(options: {
  lookup: DnsLookup;
  port: number;
  timeoutMs: number;
  ca?: string;
}): StsFetcher {
  const ca = webPkiRoots(options.ca);
  return async (domain) => {
    const host = `mta-sts.${domain}`;
    const addresses = await options.lookup.addresses(host);
    if (addresses.kind !== 'found')
      return {
        kind: 'failed',
        failure: 'sts-policy-fetch-error',
        detail: `${host} has no address (${addresses.kind})`,
      };
    return get(host, addresses.values[0]!, options.port, options.timeoutMs, ca);
  };
}

const CERT_ERRORS = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ALTNAME|ISSUER/;

function get(host: string, address: string, port: number, timeoutMs: number, ca?: string[]): Promise<FetchResult> {
  return new Promise((resolve) => {
    const fail = (failure: 'sts-policy-fetch-error' | 'sts-webpki-invalid', detail: string) =>
      resolve({ kind: 'failed', failure, detail });
    const req = request(
      {
        host: address,
        port,
        servername: host,
        path: '/.well-known/mta-sts.txt',
        headers: { host: port === 443 ? host : `${host}:${port}` },
        ...(ca ? { ca } : {}),
        timeout: timeoutMs,
        agent: false,
      },
      (res) => {
        const type = String(res.headers['content-type'] ?? '');
        if (res.statusCode !== 200) {
          res.resume();
          return fail('sts-policy-fetch-error', `${host} answered HTTP ${res.statusCode}`);
        }
        if (!/^text\/plain\b/i.test(type)) {
          res.resume();
          return fail('sts-policy-fetch-error', `${host} served ${type || 'no content type'}, not text/plain`);
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_POLICY_BYTES) {
            req.destroy();
            return fail('sts-policy-fetch-error', `${host} served a policy over ${MAX_POLICY_BYTES} bytes`);
          }
          chunks.push(chunk);
        });
        res.on('end', () => resolve({ kind: 'fetched', text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', (err) => fail('sts-policy-fetch-error', `${host}: ${err.message}`));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (err: NodeJS.ErrnoException) =>
      CERT_ERRORS.test(err.code ?? '')
        ? fail('sts-webpki-invalid', `${host}: ${err.code}: ${err.message}`)
        : fail('sts-policy-fetch-error', `${host}: ${err.code ?? 'ERROR'}: ${err.message}`),
    );
    req.end();
  });
}
