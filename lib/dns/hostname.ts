import { domainToASCII } from 'node:url';

/** A DNS label as this appliance accepts one for its records: letters, digits, hyphens. */
export function isLabel(value: string): boolean {
  return /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(value);
}

/**
 * A domain name in ASCII (IDNs converted), lower case, without a trailing dot, or undefined when
 * it is not a usable name: at least two labels, each 1..63, 253 characters in all, no IP literal.
 */
export function normalizeDomainName(input: string): string | undefined {
  const trimmed = input.trim().replace(/\.$/, '');
  if (!trimmed || /[\s/@:]/.test(trimmed)) return undefined;
  const ascii = domainToASCII(trimmed).toLowerCase();
  if (!ascii || ascii.length > 253) return undefined;
  const labels = ascii.split('.');
  if (labels.length < 2 || !labels.every((label) => /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?$/.test(label)))
    return undefined;
  if (/^\d+$/.test(labels[labels.length - 1]!)) return undefined;
  return ascii;
}

/** `name` relative to `zone`: the apex itself is '@'. */
export function relativeTo(name: string, zone: string): string {
  if (name === zone) return '@';
  return name.endsWith(`.${zone}`) ? name.slice(0, -(zone.length + 1)) : name;
}

/** The domain and its parents up to (not including) the top-level label: a.b.c.com -> a.b.c.com, b.c.com, c.com. */
export function parentChain(name: string): string[] {
  const labels = name.split('.');
  return labels.slice(0, -1).map((_, i) => labels.slice(i).join('.'));
}
