import { createHash, randomBytes } from 'node:crypto';

/**
 * Bearer secrets of the account system (session cookies, verification and reset tokens): 32
 * random bytes, base64url. Only the SHA-256 is stored; a fast hash suffices for 256 bits of
 * randomness (nothing to brute-force), unlike passwords.
 */
export function newSecretToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashSecretToken(token) };
}

export function hashSecretToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
