import { isIP } from 'node:net';
import type { DnsLookup } from '../../../lib/dns/dns-resolver.js';
import type { AddressPolicy } from '../../../lib/net/address-policy.js';

export type TargetRules = { lookup: DnsLookup; policy: AddressPolicy; allowHttp: boolean };

/** Where to connect for an endpoint URL: the parsed URL and the one address that was checked. */
export type Target = { ok: true; url: URL; address: string } | { ok: false; reason: string };

const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;

/** Scheme and shape only, without DNS: what a URL must look like to be an endpoint at all. */
export function urlProblem(raw: string, allowHttp: boolean): string | undefined {
  // The URL parser silently drops tabs and line breaks; refuse them instead of storing a URL
  // that is not what the caller sent (and could split a request line if it ever reached one).
  if (CONTROL_CHARACTERS.test(raw)) return 'must not contain control characters (CR, LF, tab or others)';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:'))
    return allowHttp ? 'must be an http or https URL' : 'must be an https URL';
  if (url.username || url.password) return 'must not carry credentials';
  if (!url.hostname) return 'must name a host';
  return undefined;
}

/**
 * Resolves an endpoint URL with the configured resolver and checks every address against the
 * policy: a name with one private, loopback or link-local address is refused outright. The
 * caller connects to the returned address, never to the name, so a second look-up cannot
 * rebind it. Run at create/update and again before every delivery attempt.
 */
export async function resolveTarget(raw: string, rules: TargetRules): Promise<Target> {
  const problem = urlProblem(raw, rules.allowHttp);
  if (problem) return { ok: false, reason: `the endpoint URL ${problem}` };
  const url = new URL(raw);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    const found = await rules.lookup.addresses(host);
    if (found.kind !== 'found')
      return {
        ok: false,
        reason: found.kind === 'none' ? `${host} does not resolve` : `${host} could not be resolved (${found.error})`,
      };
    addresses = found.values;
  }
  const refused = addresses.find((address) => !rules.policy.permits(address));
  if (refused)
    return { ok: false, reason: `${host} resolves to ${refused}, a private, loopback or link-local address` };
  return { ok: true, url, address: addresses[0]! };
}
