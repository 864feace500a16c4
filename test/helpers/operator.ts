import { Secret, TOTP } from 'otpauth';
import type { TestApp } from './test-app.js';

export type TestOperator = {
  userId: string;
  email: string;
  password: string;
  /** `mailroom_session=<token>`, for a Cookie header (browser tests: the value after `=`). */
  cookie: string;
  /** The TOTP secret (null with `mfa: false`), for tests that sign in through the login challenge. */
  totpSecret: string | null;
  /** A TOTP code for `at` (default: now). A code's 30-second step works once per user. */
  code(at?: Date): string;
};

/**
 * An operator of the test appliance as `mailroom user create --operator` makes one, with MFA
 * confirmed (unless `mfa: false`) and a signed-in session (no current team). The admin API
 * (/admin/...) accepts its cookie; with `mfa: false` it answers 403 mfa_required.
 */
export async function createOperator(
  app: TestApp,
  options: { email?: string; name?: string; password?: string; mfa?: boolean } = {},
): Promise<TestOperator> {
  const { services, clock } = app.runtime;
  const email = options.email ?? `operator-${Math.random().toString(36).slice(2, 10)}@example.com`;
  const password = options.password ?? 'operator horse battery';
  const { user } = await services.operators.create({ email, name: options.name ?? 'Olga Operator', password });
  let totpSecret: string | null = null;
  if (options.mfa !== false) {
    totpSecret = (await services.accountMfa.enrol(user)).secret;
    const first = TOTP.generate({ secret: Secret.fromBase32(totpSecret), timestamp: clock.now().getTime() });
    await services.accountMfa.confirm(user, first, '127.0.0.1');
  }
  const issued = await services.userSessions.issue(user);
  const secret = totpSecret;
  return {
    userId: user.id,
    email,
    password,
    cookie: `mailroom_session=${issued.token}`,
    totpSecret,
    code(at = clock.now()) {
      if (!secret) throw new Error('this operator has no MFA');
      return TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: at.getTime() });
    },
  };
}
