import { request } from 'node:https';
import { isIP } from 'node:net';
import type { DnsLookup } from '../dns/dns-resolver.js';
import type { AddressPolicy } from './address-policy.js';

export type SafeFetchOptions = {
  lookup: DnsLookup;
  policy: AddressPolicy;
  timeoutMs: number;
  maxBytes: number;
  maxRedirects?: number;
  /** Extra trusted CA certificates (PEM), e.g. an operator's internal CA. */
  ca?: string;
};

export type SafeFetchResult =
  { ok: true; bytes: Buffer; contentType: string | undefined; finalUrl: string } | { ok: false; reason: string };

/**
 * Fetches an https URL for a caller without letting the caller reach what it should not:
 * the host is resolved first and every address checked against the policy, the connection goes
 * to the checked address (no second look-up to rebind), redirects are followed by hand and
 * checked the same way, and size and time are bounded. Results are values.
 */
export async function safeFetch(url: string, options: SafeFetchOptions): Promise<SafeFetchResult> {
  let current = url;
  const deadline = Date.now() + options.timeoutMs;
  for (let hop = 0; hop <= (options.maxRedirects ?? 3); hop++) {
    const target = await checkTarget(current, options);
    if ('reason' in target) return { ok: false, reason: target.reason };
    const response = await fetchOnce(target.url, target.address, options, deadline);
    if (!response.ok) return response;
    if (response.redirect === undefined)
      return { ok: true, bytes: response.bytes, contentType: response.contentType, finalUrl: current };
    current = new URL(response.redirect, current).toString();
  }
  return { ok: false, reason: 'too many redirects' };
}

async function checkTarget(
  raw: string,
  options: SafeFetchOptions,
): Promise<{ url: URL; address: string } | { reason: string }> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { reason: 'is not a URL' };
  }
  if (url.protocol !== 'https:') return { reason: 'only https URLs are fetched' };
  if (url.username || url.password) return { reason: 'URLs with credentials are refused' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    const found = await options.lookup.addresses(host);
    if (found.kind !== 'found')
      return {
        reason: found.kind === 'none' ? `${host} does not resolve` : `${host} could not be resolved (${found.error})`,
      };
    addresses = found.values;
  }
  // Every address must be allowed: a name with one private address is refused outright.
  const refused = addresses.find((address) => !options.policy.permits(address));
  if (refused) return { reason: `${host} resolves to ${refused}, a private, loopback or link-local address` };
  return { url, address: addresses[0]! };
}

type Once =
  { ok: true; bytes: Buffer; contentType: string | undefined; redirect?: string } | { ok: false; reason: string };

function fetchOnce(url: URL, address: string, options: SafeFetchOptions, deadline: number): Promise<Once> {
  return new Promise((resolve) => {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return resolve({ ok: false, reason: `timed out after ${options.timeoutMs} ms` });
    const req = request(
      {
        host: address,
        servername: isIP(url.hostname) ? undefined : url.hostname,
        port: url.port ? Number(url.port) : 443,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: { host: url.host, 'user-agent': 'Mailroom-Attachment-Fetch/1.0', accept: '*/*' },
        ca: options.ca,
        timeout: remaining,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400 && res.headers.location) {
          res.resume();
          return resolve({ ok: true, bytes: Buffer.alloc(0), contentType: undefined, redirect: res.headers.location });
        }
        if (status !== 200) {
          res.resume();
          return resolve({ ok: false, reason: `the server answered ${status}` });
        }
        if (Number(res.headers['content-length'] ?? 0) > options.maxBytes) {
          req.destroy();
          return resolve({ ok: false, reason: `larger than ${options.maxBytes} bytes` });
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) {
            req.destroy();
            resolve({ ok: false, reason: `larger than ${options.maxBytes} bytes` });
          } else chunks.push(chunk);
        });
        res.on('end', () =>
          resolve({
            ok: true,
            bytes: Buffer.concat(chunks),
            contentType: res.headers['content-type']?.split(';')[0]?.trim(),
          }),
        );
        res.on('error', (err) => resolve({ ok: false, reason: err.message }));
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      resolve({ ok: false, reason: `timed out after ${options.timeoutMs} ms` });
    }, remaining);
    req.on('timeout', () => {
      req.destroy();
      resolve({ ok: false, reason: `timed out after ${options.timeoutMs} ms` });
    });
    req.on('error', (err) => resolve({ ok: false, reason: err.message }));
    req.on('close', () => clearTimeout(timer));
    req.end();
  });
}
