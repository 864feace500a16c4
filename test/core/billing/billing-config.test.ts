import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createBillingProvider } from '../../../core/platform/billing/billing.services.js';
import { systemClock } from '../../../lib/clock.js';
import { loadConfig, maskConfig } from '../../../lib/config/load-config.js';
import { ConfigError } from '../../../lib/errors.js';
import { createLogger } from '../../../lib/logger.js';

/**
 * The billing section: `none` by default; `stripe` needs the secret key and the webhook secret
 * from the environment (never the config file, never shown) and a price for at least one plan;
 * prices name only codes of the plan and add-on catalogues.
 */
const dir = mkdtempSync(join(tmpdir(), 'mailroom-billing-config-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const SECRET = 'sk_test_verysecretvalue123';
const HOOK = 'whsec_alsoverysecret456';
const base = { MAILROOM_CONFIG: '' };
const stripeEnv = {
  ...base,
  MAILROOM_BILLING_PROVIDER: 'stripe',
  MAILROOM_STRIPE_SECRET_KEY: SECRET,
  MAILROOM_STRIPE_WEBHOOK_SECRET: HOOK,
};
const withFile = (config: unknown) => {
  const file = join(dir, `c${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(config));
  return file;
};
const configError = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error('expected a ConfigError');
};

t.test('the default is none', async (t) => {
  t.equal(loadConfig(base).billing.provider, 'none');
  t.equal(
    createBillingProvider({ config: loadConfig(base), clock: systemClock, logger: createLogger('silent') }).configured,
    false,
  );
});

t.test('stripe: secrets from the environment, prices from the file', async (t) => {
  const config = loadConfig({
    ...stripeEnv,
    MAILROOM_CONFIG: withFile({ billing: { stripe: { prices: { pro: 'price_1' } } } }),
  });
  t.equal(config.billing.provider, 'stripe');
  t.equal(config.billing.stripe.secretKey, SECRET);
  t.equal(config.billing.stripe.webhookSecret, HOOK);
  const masked = JSON.stringify(maskConfig(config));
  t.notMatch(masked, SECRET, 'config print masks the secret key');
  t.notMatch(masked, HOOK, 'and the webhook secret');
  t.equal(createBillingProvider({ config, clock: systemClock, logger: createLogger('silent') }).name, 'stripe');
});

t.test('stripe without the secret key, the webhook secret or a plan price: a clear error', async (t) => {
  const file = withFile({ billing: { stripe: { prices: { pro: 'price_1' } } } });
  t.match(
    configError(() =>
      loadConfig({
        ...base,
        MAILROOM_BILLING_PROVIDER: 'stripe',
        MAILROOM_STRIPE_WEBHOOK_SECRET: HOOK,
        MAILROOM_CONFIG: file,
      }),
    ),
    /billing\.stripe\.secretKey.*MAILROOM_STRIPE_SECRET_KEY/,
  );
  t.match(
    configError(() =>
      loadConfig({
        ...base,
        MAILROOM_BILLING_PROVIDER: 'stripe',
        MAILROOM_STRIPE_SECRET_KEY: SECRET,
        MAILROOM_CONFIG: file,
      }),
    ),
    /billing\.stripe\.webhookSecret.*MAILROOM_STRIPE_WEBHOOK_SECRET/,
  );
  t.match(
    configError(() => loadConfig(stripeEnv)),
    /billing\.stripe\.prices.*at least one plan/,
  );
});

t.test('secrets in the config file are refused, without echoing them', async (t) => {
  for (const key of ['secretKey', 'webhookSecret']) {
    const file = withFile({
      billing: { provider: 'stripe', stripe: { [key]: 'sk_live_leaked', prices: { pro: 'p' } } },
    });
    const message = configError(() => loadConfig({ ...stripeEnv, MAILROOM_CONFIG: file }));
    t.match(message, new RegExp(`billing\\.stripe\\.${key}.*environment`), `${key} refused in the file`);
    t.notMatch(message, 'sk_live_leaked', 'the value is not repeated');
  }
});

t.test('prices must name plan or add-on codes, each price once; overage only for priced plans', async (t) => {
  const provider = (stripe: Record<string, unknown>) => () =>
    createBillingProvider({
      config: loadConfig({ ...stripeEnv, MAILROOM_CONFIG: withFile({ billing: { stripe } }) }),
      clock: systemClock,
      logger: createLogger('silent'),
    });
  t.match(configError(provider({ prices: { pro: 'p1', gold: 'p2' } })), /prices\.gold: not a plan .* or add-on/);
  t.match(
    configError(provider({ prices: { pro: 'p1', scale: 'p1' } })),
    /prices\.scale: p1 is already the price of pro/,
  );
  t.match(configError(provider({ prices: { inbox_seat: 'p1' } })), /at least one plan code/);
  t.match(
    configError(provider({ prices: { pro: 'p1' }, overagePrices: { scale: 'p2' } })),
    /overagePrices\.scale: the plan has no price/,
  );
  t.doesNotThrow(provider({ prices: { pro: 'p1', inbox_seat: 'p3' }, overagePrices: { pro: 'p2' } }));
});
