import { Secret, TOTP } from 'otpauth';

/** TOTP as authenticator apps do it: SHA-1, 6 digits, 30-second steps. */
const PERIOD_SECONDS = 30;

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The otpauth:// URI an authenticator app reads (as a QR code, drawn by the dashboard). */
export function totpUri(secret: string, account: string): string {
  return new TOTP({
    issuer: 'Mailroom',
    label: account,
    secret: Secret.fromBase32(secret),
    period: PERIOD_SECONDS,
  }).toString();
}

/**
 * The time step a code belongs to, accepting one step of clock drift either way, or null when
 * the code is wrong. The caller refuses a step it has seen before (a code works once).
 */
export function totpStep(secret: string, code: string, now: Date): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const totp = new TOTP({ secret: Secret.fromBase32(secret), period: PERIOD_SECONDS });
  const delta = totp.validate({ token: code, timestamp: now.getTime(), window: 1 });
  if (delta === null) return null;
  return Math.floor(now.getTime() / 1000 / PERIOD_SECONDS) + delta;
}
