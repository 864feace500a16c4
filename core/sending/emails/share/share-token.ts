import { createHash, randomBytes } from 'node:crypto';

/**
 * The secret in a share URL: 32 random bytes, base64url (43 characters). Only its SHA-256 is
 * stored, so a leaked database gives no working link; a fast hash is enough for 256 bits of
 * randomness (there is nothing to brute-force), as with the account system's tokens.
 */
export function newShareToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashShareToken(token) };
}

export function hashShareToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** What a token can look like; anything else is refused before a database look-up. */
export const SHARE_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
