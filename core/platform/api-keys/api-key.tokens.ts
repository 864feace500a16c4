import * as crypto from 'node:crypto';
import { createHash, randomBytes } from 'node:crypto';

/** Token prefixes of this interface (spec: OAuth client registration). */
export const TOKEN_PREFIXES = {
  apiKey: 'svc_',
  accessToken: 'svco_',
  refreshToken: 'svcr_',
  authorizationCode: 'svcc_',
  clientId: 'svcoc_',
  registrationToken: 'svcor_',
} as const;

/** How many leading characters of a token are kept for recognition (prefix + 8). */
export const KEY_PREFIX_LENGTH = TOKEN_PREFIXES.apiKey.length + 8;

/** 32 random bytes: a token too long to guess, so a plain SHA-256 is a sufficient hash. */
export function generateApiKeyToken(): string {
  return TOKEN_PREFIXES.apiKey + randomBytes(32).toString('base64url');
}

/** Every request hashes its token: the one-shot crypto.hash (Node >= 20.12) is about 3x cheaper than a Hash object. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

export function hashToken(token: string): string {
  return oneShot ? oneShot('sha256', token, 'hex') : createHash('sha256').update(token, 'utf8').digest('hex');
}

export function keyPrefixOf(token: string): string {
  return token.slice(0, KEY_PREFIX_LENGTH);
}

/** Anything that looks like a credential of this interface (used to keep them out of logs). */
export const TOKEN_PATTERN = /\bsvc(?:o|r|c|oc|or)?_[A-Za-z0-9_-]{8,}/;
