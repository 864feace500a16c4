import { createPrivateKey, type KeyObject } from 'node:crypto';

export type DkimKeyCacheStats = { size: number; capacity: number; hits: number; misses: number };

/**
 * Parsed private keys by PEM text, least recently used evicted first.
 *
 * Parsing a PEM (base64, ASN.1, and for RSA the CRT parameter checks) costs more than the
 * signature it is used for, and a worker signs every message of a domain with the same one or
 * two keys. The PEM string itself is the map key: V8 caches a string's hash, and a lookup is a
 * hash plus one compare, cheaper than digesting the PEM. The bound keeps an appliance hosting
 * many domains (or rotating keys) from holding every key it has ever seen.
 */
export class DkimKeyCache {
  readonly #entries = new Map<string, KeyObject>();
  readonly #capacity: number;
  #hits = 0;
  #misses = 0;

  constructor(capacity = 1000) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`DKIM key cache capacity must be a positive integer, got ${capacity}`);
    this.#capacity = capacity;
  }

  get(privateKeyPem: string): KeyObject {
    const cached = this.#entries.get(privateKeyPem);
    if (cached) {
      this.#hits += 1;
      // Re-insertion moves the entry to the end of the Map's insertion order: the LRU position.
      this.#entries.delete(privateKeyPem);
      this.#entries.set(privateKeyPem, cached);
      return cached;
    }
    this.#misses += 1;
    const key = createPrivateKey(privateKeyPem);
    this.#entries.set(privateKeyPem, key);
    if (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    return key;
  }

  stats(): DkimKeyCacheStats {
    return { size: this.#entries.size, capacity: this.#capacity, hits: this.#hits, misses: this.#misses };
  }

  clear(): void {
    this.#entries.clear();
  }
}
