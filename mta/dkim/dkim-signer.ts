import { createHash, createSign, sign as signDigest, type KeyObject } from 'node:crypto';
import { domainToASCII } from 'node:url';
import { markCrlf } from '../../lib/mail/line-endings.js';
import { systemClock, type Clock } from '../../lib/clock.js';
import { relaxedBodyParts } from './dkim-body-canonicalizer.js';
import { relaxedHeader, splitMessage, type HeaderField } from './dkim-canonicalizer.js';
import { appendSignature, foldSignatureTags, type DkimTag } from './dkim-header-formatter.js';
import { DkimKeyCache } from './dkim-key-cache.js';

/**
 * DKIM signing for the outbound MTA: relaxed/relaxed, rsa-sha256 and ed25519-sha256 (RFC 8463),
 * no l= (a body-length limit lets anyone append content under our signature), and every
 * signed field name listed once more than it occurs, so a field prepended in transit (a
 * second From, a new Subject) makes verification fail instead of passing unnoticed.
 */

export type DkimSigningKey = { domain: string; selector: string; algorithm: 'rsa' | 'ed25519'; privateKeyPem: string };

export type DkimSignerOptions = {
  clock?: Clock;
  /** Shared between signers in one process; by default each signer has its own. */
  keyCache?: DkimKeyCache;
  /** Capacity of the signer's own cache when none is given. */
  keyCacheSize?: number;
};

/** Lowercase, in h= order. Fields the message lacks are still listed: that signs their absence. */
export const SIGNED_HEADERS: readonly string[] = [
  'from',
  'to',
  'cc',
  'subject',
  'date',
  'message-id',
  'reply-to',
  'mime-version',
  'content-type',
  'list-unsubscribe',
  'list-unsubscribe-post',
  'feedback-id',
];

const ALGORITHMS = { rsa: 'rsa-sha256', ed25519: 'ed25519-sha256' } as const;
// Selector and domain go into the tag list verbatim; this keeps a bad row from injecting tags.
const SELECTOR = /^[A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9])?)*$/;

/** What both signatures of one message share, computed once. */
type MessageDigest = { bodyHash: string; headerList: string; canonicalHeaders: string; timestamp: number };

/** h= and the canonical text it stands for; instances are consumed bottom-up (RFC 6376 5.4.2). */
export function selectSignedHeaders(fields: readonly HeaderField[]): { headerList: string; canonicalHeaders: string } {
  const names: string[] = [];
  const canonical: string[] = [];
  for (const name of SIGNED_HEADERS) {
    const instances = fields.filter((field) => field.name === name);
    for (let i = instances.length - 1; i >= 0; i--) canonical.push(`${relaxedHeader(instances[i]!.raw)}\r\n`);
    for (let i = 0; i <= instances.length; i++) names.push(name);
  }
  return { headerList: names.join(':'), canonicalHeaders: canonical.join('') };
}

function signingDomain(key: DkimSigningKey): string {
  const domain = domainToASCII(key.domain.trim());
  if (!domain) throw new Error(`DKIM signing domain is not a valid domain name: ${JSON.stringify(key.domain)}`);
  if (!SELECTOR.test(key.selector))
    throw new Error(`DKIM selector is not a valid selector: ${JSON.stringify(key.selector)}`);
  return domain;
}

function assertKeyType(key: KeyObject, signing: DkimSigningKey): void {
  if (key.asymmetricKeyType !== signing.algorithm) {
    throw new Error(
      `DKIM key ${signing.selector}._domainkey.${signing.domain} is ${key.asymmetricKeyType ?? 'unknown'}, configured as ${signing.algorithm}`,
    );
  }
}

function sortRsaFirst(keys: readonly DkimSigningKey[]): DkimSigningKey[] {
  // Array.prototype.sort is stable: keys of one algorithm keep the caller's order.
  return [...keys].sort((a, b) => Number(a.algorithm !== 'rsa') - Number(b.algorithm !== 'rsa'));
}

export class DkimSigner {
  readonly keyCache: DkimKeyCache;
  readonly #clock: Clock;

  constructor(options: DkimSignerOptions = {}) {
    this.keyCache = options.keyCache ?? new DkimKeyCache(options.keyCacheSize);
    this.#clock = options.clock ?? systemClock;
  }

  /** The message, CRLF-normalised (bare CR and LF alike), with one DKIM-Signature field per key prepended, RSA first. */
  sign(message: Buffer, keys: readonly DkimSigningKey[]): Buffer {
    const { normalized, fields, body } = splitMessage(message);
    if (keys.length === 0) return normalized;
    const digest = this.#digest(fields, body);
    const signatures = sortRsaFirst(keys).map((key) => {
      const field = this.#unsignedField(key, digest);
      return appendSignature(field.folded, signatureOf(key.algorithm, field.key, field.signed));
    });
    return markCrlf(Buffer.concat([Buffer.from(signatures.join(''), 'latin1'), normalized]));
  }

  /**
   * The same as sign(), with the private-key operations on libuv's thread pool: an MTA signing
   * every message keeps its event loop free for the connections meanwhile (an RSA-2048
   * signature is the largest single cost of a message), and can use another core for them.
   */
  async signAsync(message: Buffer, keys: readonly DkimSigningKey[]): Promise<Buffer> {
    const { normalized, fields, body } = splitMessage(message);
    if (keys.length === 0) return normalized;
    const digest = this.#digest(fields, body);
    const signatures = await Promise.all(
      sortRsaFirst(keys).map(async (key) => {
        const field = this.#unsignedField(key, digest);
        return appendSignature(field.folded, await signatureOfAsync(key.algorithm, field.key, field.signed));
      }),
    );
    return markCrlf(Buffer.concat([Buffer.from(signatures.join(''), 'latin1'), normalized]));
  }

  #digest(fields: readonly HeaderField[], body: Buffer): MessageDigest {
    return {
      bodyHash: bodyHashOf(body),
      timestamp: Math.floor(this.#clock.now().getTime() / 1000),
      ...selectSignedHeaders(fields),
    };
  }

  /** The signature field with b= empty, and the text the signature is computed over. */
  #unsignedField(signing: DkimSigningKey, digest: MessageDigest): { folded: string; signed: string; key: KeyObject } {
    const domain = signingDomain(signing);
    const key = this.keyCache.get(signing.privateKeyPem);
    assertKeyType(key, signing);
    const tags: DkimTag[] = [
      ['v', '1'],
      ['a', ALGORITHMS[signing.algorithm]],
      ['c', 'relaxed/relaxed'],
      ['d', domain],
      ['s', signing.selector],
      ['t', String(digest.timestamp)],
      ['bh', digest.bodyHash],
      ['h', digest.headerList],
    ];
    const folded = foldSignatureTags(tags);
    // The signature field itself is hashed last, canonicalized, with b= empty and no CRLF.
    return { folded, signed: digest.canonicalHeaders + relaxedHeader(folded), key };
  }
}

function bodyHashOf(body: Buffer): string {
  const hash = createHash('sha256');
  for (const part of relaxedBodyParts(body)) hash.update(part);
  return hash.digest('base64');
}

/** signatureOf through crypto.sign's callback form, which runs on the thread pool. */
function signatureOfAsync(algorithm: DkimSigningKey['algorithm'], key: KeyObject, signed: string): Promise<string> {
  // RSA: PKCS#1 v1.5 over SHA-256 of the data, as createSign('sha256') does.
  const [digestName, data] =
    algorithm === 'rsa'
      ? ['sha256', Buffer.from(signed, 'latin1')]
      : [null, createHash('sha256').update(signed, 'latin1').digest()];
  return new Promise((resolve, reject) =>
    signDigest(digestName, data, key, (err, signature) => (err ? reject(err) : resolve(signature.toString('base64')))),
  );
}

function signatureOf(algorithm: DkimSigningKey['algorithm'], key: KeyObject, signed: string): string {
  if (algorithm === 'rsa') return createSign('sha256').update(signed, 'latin1').sign(key, 'base64');
  // RFC 8463: Ed25519 (pure) signs the SHA-256 digest of the data, not the data itself.
  const hashed = createHash('sha256').update(signed, 'latin1').digest();
  return signDigest(null, hashed, key).toString('base64');
}
