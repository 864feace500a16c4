/**
 * MTA-STS (RFC 8461) texts: the `_mta-sts` TXT record and the policy file, parsed strictly (a
 * policy that breaks 3.2 is refused as a whole, as the RFC asks), and MX name matching.
 */

export type StsMode = 'enforce' | 'testing' | 'none';

export type StsPolicy = {
  mode: StsMode;
  /** Patterns as published: `mail.example.com` or `*.example.com` (one label). */
  mx: string[];
  maxAgeSeconds: number;
  /** The policy's lines as published (TLS reports quote them). */
  lines: string[];
};

/** RFC 8461 3.2: max_age is at most 31557600 seconds (about a year). */
export const MAX_AGE_LIMIT_SECONDS = 31_557_600;

/**
 * The id of a `_mta-sts` TXT answer (RFC 8461 3.1): records not starting with `v=STSv1` are
 * ignored; anything but exactly one valid record means the domain has no policy (null).
 */
export function parseStsRecord(records: string[]): string | null {
  const sts = records.filter((record) => /^v=STSv1\s*;/.test(record) || record.trim() === 'v=STSv1');
  if (sts.length !== 1) return null;
  const fields = new Map<string, string>();
  for (const part of sts[0]!.split(';')) {
    const trimmed = part.trim();
    if (!trimmed) continue;
    const eq = trimmed.indexOf('=');
    if (eq <= 0) return null;
    fields.set(trimmed.slice(0, eq).trim(), trimmed.slice(eq + 1).trim());
  }
  const id = fields.get('id');
  return id && /^[A-Za-z0-9]{1,32}$/.test(id) ? id : null;
}

/** The policy file's fields; an error text when it breaks RFC 8461 3.2. */
export function parseStsPolicy(text: string): { policy: StsPolicy } | { error: string } {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  let version: string | undefined;
  let mode: string | undefined;
  let maxAge: string | undefined;
  const mx: string[] = [];
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) return { error: `not a "key: value" line: ${line.slice(0, 80)}` };
    const key = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    // Repeated single-valued fields are ambiguous: refuse rather than guess which one counts.
    if (key === 'version') {
      if (version !== undefined) return { error: 'version appears twice' };
      version = value;
    } else if (key === 'mode') {
      if (mode !== undefined) return { error: 'mode appears twice' };
      mode = value;
    } else if (key === 'max_age') {
      if (maxAge !== undefined) return { error: 'max_age appears twice' };
      maxAge = value;
    } else if (key === 'mx') mx.push(value.toLowerCase().replace(/\.$/, ''));
    // Other keys are extensions: ignored (RFC 8461 3.2).
  }
  if (version !== 'STSv1') return { error: `version must be STSv1 (got ${version ?? 'none'})` };
  if (mode !== 'enforce' && mode !== 'testing' && mode !== 'none')
    return { error: `mode must be enforce, testing or none (got ${mode ?? 'none'})` };
  if (maxAge === undefined || !/^\d{1,10}$/.test(maxAge)) return { error: 'max_age must be a whole number of seconds' };
  const maxAgeSeconds = Number(maxAge);
  if (maxAgeSeconds > MAX_AGE_LIMIT_SECONDS) return { error: `max_age above ${MAX_AGE_LIMIT_SECONDS}` };
  if (mode !== 'none' && mx.length === 0) return { error: 'no mx pattern' };
  const bad = mx.find((pattern) => !validPattern(pattern));
  if (bad !== undefined) return { error: `invalid mx pattern: ${bad}` };
  return { policy: { mode, mx, maxAgeSeconds, lines } };
}

const LABEL = /^[a-z0-9_]([a-z0-9-]{0,61}[a-z0-9])?$/;

function validPattern(pattern: string): boolean {
  const name = pattern.startsWith('*.') ? pattern.slice(2) : pattern;
  const labels = name.split('.');
  return labels.length >= 2 && labels.every((label) => LABEL.test(label));
}

/**
 * Whether an MX host name matches a policy pattern (RFC 8461 4.1): exactly, or `*.` standing
 * for one whole left-most label (`*.example.com` matches `mx.example.com`, not
 * `example.com` nor `a.b.example.com`).
 */
export function mxMatches(pattern: string, host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  if (!pattern.startsWith('*.')) return name === pattern;
  const dot = name.indexOf('.');
  return dot > 0 && name.slice(dot + 1) === pattern.slice(2);
}

export const mxAllowed = (policy: StsPolicy, host: string): boolean =>
  policy.mx.some((pattern) => mxMatches(pattern, host));
