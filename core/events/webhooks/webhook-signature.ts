import { createHmac, randomBytes } from 'node:crypto';

/**
 * The signature scheme of the spec ("Delivery and signature"), which is Standard Webhooks':
 * a secret is `whsec_` + base64 of random bytes; a signature is
 * `v1,` + base64(HMAC-SHA256(secret bytes, id + '.' + timestamp + '.' + body)).
 */
const PREFIX = 'whsec_';

/** A new signing secret: 32 random bytes (the spec asks for 24 or more). */
export function newSigningSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

function secretBytes(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

export function signatureOf(secret: string, id: string, timestamp: number, body: string): string {
  return 'v1,' + createHmac('sha256', secretBytes(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
}

/**
 * The webhook-signature header: one `v1,` entry per secret in effect, space-separated, so a
 * receiver holding either secret during a rotation's grace period verifies.
 */
export function signatureHeader(secrets: string[], id: string, timestamp: number, body: string): string {
  return secrets.map((secret) => signatureOf(secret, id, timestamp, body)).join(' ');
}
