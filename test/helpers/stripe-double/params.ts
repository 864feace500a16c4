import { obj, str, type Form, type FormValue } from './form-encoding.js';
import { invalidRequest, missingParam, unknownParam } from './stripe-errors.js';

/**
 * Reading a request's parameters the way Stripe validates them: unknown names refused, integers,
 * booleans, enums and URLs checked, each error naming its `param` in Stripe's bracket notation.
 */

/** Refuses every parameter of `form` not in `allowed` (names relative to `prefix`). */
export function allowOnly(form: Form, allowed: readonly string[], prefix = ''): void {
  for (const key of Object.keys(form)) {
    if (!allowed.includes(key)) throw unknownParam(prefix ? `${prefix}[${key}]` : key);
  }
}

export function requiredString(form: Form, key: string, param = key): string {
  const value = str(form[key]);
  if (value === undefined || value === '') throw missingParam(param);
  return value;
}

export function optionalString(form: Form, key: string): string | null {
  const value = str(form[key]);
  return value === undefined || value === '' ? null : value;
}

export function integer(
  value: FormValue | undefined,
  param: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (value === undefined) return undefined;
  const text = str(value) ?? '';
  if (!/^-?\d+$/.test(text)) throw invalidRequest(`Invalid integer: ${text}`, param, 'parameter_invalid_integer');
  const n = Number(text);
  if (n < min)
    throw invalidRequest(`This value must be greater than or equal to ${min}.`, param, 'parameter_invalid_integer');
  if (n > max)
    throw invalidRequest(`This value must be less than or equal to ${max}.`, param, 'parameter_invalid_integer');
  return n;
}

export function boolean(value: FormValue | undefined, param: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw invalidRequest(`Invalid boolean: ${String(str(value) ?? '')}`, param);
}

export function oneOf<T extends string>(
  value: FormValue | undefined,
  param: string,
  allowed: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  const text = str(value) ?? '';
  if ((allowed as readonly string[]).includes(text)) return text as T;
  throw invalidRequest(`Invalid ${param}: must be one of ${allowed.join(', ')}`, param);
}

/** Stripe refuses a URL it cannot parse (`url_invalid`). */
export function url(value: FormValue | undefined, param: string): string | null {
  const text = str(value);
  if (text === undefined || text === '') return null;
  try {
    const parsed = new URL(text);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return text;
  } catch {
    // falls through to the refusal
  }
  throw invalidRequest('Not a valid URL', param, 'url_invalid');
}

export function email(value: FormValue | undefined, param: string): string | null {
  const text = str(value);
  if (text === undefined || text === '') return null;
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text))
    throw invalidRequest(`Invalid email address: ${text}`, param, 'email_invalid');
  return text;
}

/** Metadata as given on create: string values only. */
export function metadata(value: FormValue | undefined, param = 'metadata'): Record<string, string> {
  if (value === undefined || value === '') return {};
  const form = obj(value);
  if (!form) throw invalidRequest('Invalid object', param);
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(form)) {
    if (typeof v !== 'string') throw invalidRequest('Metadata values must be strings.', `${param}[${key}]`);
    if (v !== '') out[key] = v;
  }
  return out;
}

/** `expand[]` as a list of paths. */
export function expansions(form: Form): string[] {
  const value = form.expand;
  if (value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  return list.map((v) => (typeof v === 'string' ? v : ''));
}

export const PRORATION_BEHAVIORS = ['always_invoice', 'create_prorations', 'none'] as const;
