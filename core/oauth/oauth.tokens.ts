import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import { hashToken, TOKEN_PREFIXES } from '../platform/api-keys/api-key.tokens.js';

export { hashToken, TOKEN_PREFIXES };

/** 32 random bytes after the prefix, like API keys: a plain SHA-256 is then a sufficient hash. */
export function generateToken(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
}

/** Client ids are public: 16 random bytes keep them unguessable enough to be unlisted. */
export function generateClientId(): string {
  return TOKEN_PREFIXES.clientId + randomBytes(16).toString('base64url');
}

/** RFC 7636 4.1: 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
/** BASE64URL(SHA-256(verifier)) is always 43 characters. */
export const CODE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** PKCE S256 (RFC 7636 4.6), compared in constant time. */
export function verifierMatches(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier) || !CODE_CHALLENGE.test(challenge)) return false;
  const computed = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'));
  return timingSafeEqual(computed, Buffer.from(challenge));
}
