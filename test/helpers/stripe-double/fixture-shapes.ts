import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Checks answers against Stripe's own example objects (`stripe-fixtures3.json` from Stripe's
 * public openapi repository, kept outside this repository in ../shared/reference): every value
 * that carries `object` must have exactly the top-level field names of the fixture of the same
 * type, recursively.
 */

export type StripeFixtures = Record<string, Record<string, unknown>>;

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '../../..');

/** `MAILROOM_STRIPE_FIXTURES`, else `<repo>/../shared/reference/stripe-fixtures3.json`, and whether it exists. */
export function locateStripeFixtures(): { path: string; found: boolean } {
  const path =
    process.env.MAILROOM_STRIPE_FIXTURES || join(repoRoot, '..', 'shared', 'reference', 'stripe-fixtures3.json');
  return { path, found: existsSync(path) };
}

export function loadStripeFixtures(path: string): StripeFixtures {
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as { resources?: StripeFixtures };
  if (!parsed.resources) throw new Error(`${path} has no "resources"`);
  return parsed.resources;
}

type Allowance = {
  reason: string;
  extra?: string[];
  mayLack?: Record<string, (value: Record<string, unknown>) => boolean>;
};

/**
 * Where the double departs from the fixture on purpose. The SDK (stripe@23, API 2026-10-28) is
 * newer than the fixture file (2026-08-21): fields its types require are sent although the
 * fixture lacks them.
 */
export const KNOWN_DIFFERENCES: Record<string, Allowance> = {
  'checkout.session': {
    reason: 'allowed_payment_method_types is required by the SDK type and newer than the fixture',
    extra: ['allowed_payment_method_types'],
  },
  subscription_item: {
    reason:
      'current_trial is required by the SDK type and newer than the fixture; Stripe sends no quantity on a metered item',
    extra: ['current_trial'],
    mayLack: {
      quantity: (item) => (item.price as { recurring?: { usage_type?: string } })?.recurring?.usage_type === 'metered',
    },
  },
};

const LIST_FIELDS = ['data', 'has_more', 'object', 'url'];

export type ShapeReport = { problems: string[]; checked: Map<string, number> };

/** Walks `value`, comparing every object that carries `object` with its fixture. */
export function compareWithFixtures(
  value: unknown,
  fixtures: StripeFixtures,
  at = '$',
  report: ShapeReport = { problems: [], checked: new Map() },
): ShapeReport {
  if (Array.isArray(value)) {
    value.forEach((item, i) => compareWithFixtures(item, fixtures, `${at}[${i}]`, report));
    return report;
  }
  if (!value || typeof value !== 'object') return report;
  const record = value as Record<string, unknown>;
  const type = record.object;
  if (typeof type === 'string') {
    report.checked.set(type, (report.checked.get(type) ?? 0) + 1);
    const fixture = fixtures[type];
    const expected = type === 'list' ? LIST_FIELDS : fixture ? Object.keys(fixture) : null;
    if (!expected) {
      report.problems.push(`${at}: no fixture for object type "${type}"`);
    } else {
      const allowance = KNOWN_DIFFERENCES[type];
      const keys = Object.keys(record);
      const missing = expected.filter((k) => !keys.includes(k) && !allowance?.mayLack?.[k]?.(record));
      const extra = keys.filter((k) => !expected.includes(k) && !allowance?.extra?.includes(k));
      if (missing.length) report.problems.push(`${at} (${type}): missing ${missing.join(', ')}`);
      if (extra.length) report.problems.push(`${at} (${type}): extra ${extra.join(', ')}`);
    }
  }
  for (const [key, child] of Object.entries(record)) compareWithFixtures(child, fixtures, `${at}.${key}`, report);
  return report;
}
