import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { DkimAlgorithm } from './domain.types.js';

/**
 * DKIM key material. RSA 2048 is what every receiver verifies; Ed25519 (RFC 8463) is smaller
 * and is published alongside when asked for, never instead.
 */
export type GeneratedKey = { algorithm: DkimAlgorithm; selector: string; publicKey: string; privateKeyPem: string };

/** A fresh selector per key, so a rotation can publish the new key beside the old one. */
export function newSelector(algorithm: DkimAlgorithm): string {
  return `mr${algorithm === 'ed25519' ? 'e' : ''}${randomBytes(5).toString('hex')}`;
}

export function generateDkimKey(algorithm: DkimAlgorithm): GeneratedKey {
  if (algorithm === 'ed25519') {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    // p= for ed25519 is the raw 32-byte key: the last 32 bytes of the SPKI DER.
    const raw = publicKey.export({ type: 'spki', format: 'der' }).subarray(-32);
    return {
      algorithm,
      selector: newSelector(algorithm),
      publicKey: raw.toString('base64'),
      privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    };
  }
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    algorithm,
    selector: newSelector(algorithm),
    publicKey: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

/** The TXT value published at `<selector>._domainkey.<domain>`. */
export function dkimRecordValue(algorithm: DkimAlgorithm, publicKey: string): string {
  return `v=DKIM1; k=${algorithm === 'ed25519' ? 'ed25519' : 'rsa'}; p=${publicKey}`;
}
