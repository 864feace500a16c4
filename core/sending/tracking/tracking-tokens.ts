import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Tokens of the open pixel and of rewritten links. A token is base64url of
 * [kind (1 byte)][email id (16 bytes)][original URL, UTF-8, clicks only][MAC (16 bytes)], the MAC
 * being HMAC-SHA256 under a key derived from the master key, truncated to 128 bits. The URL is
 * inside the signed bytes, so the click endpoint can only redirect to a link that was in the
 * message, and nothing is stored per link.
 */
export type TrackingToken = { kind: 'open'; emailId: string } | { kind: 'click'; emailId: string; url: string };

const KIND_OPEN = 0x6f; // 'o'
const KIND_CLICK = 0x63; // 'c'
const ID_BYTES = 16;
const MAC_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export class TrackingTokens {
  private readonly key: Buffer;

  constructor(masterKey: string) {
    this.key = createHmac('sha256', 'mailroom-tracking-tokens').update(masterKey).digest();
  }

  open(emailId: string): string {
    return this.seal(KIND_OPEN, emailId, Buffer.alloc(0));
  }

  click(emailId: string, url: string): string {
    return this.seal(KIND_CLICK, emailId, Buffer.from(url, 'utf8'));
  }

  /** The token's content, or null for anything malformed, tampered with or signed by another key. */
  verify(token: string): TrackingToken | null {
    if (!BASE64URL.test(token)) return null;
    const bytes = Buffer.from(token, 'base64url');
    // Exactly one spelling per token: trailing bits that decoding would drop are refused.
    if (bytes.length < 1 + ID_BYTES + MAC_BYTES || bytes.toString('base64url') !== token) return null;
    const payload = bytes.subarray(0, bytes.length - MAC_BYTES);
    const mac = bytes.subarray(bytes.length - MAC_BYTES);
    if (!timingSafeEqual(mac, this.mac(payload))) return null;
    const emailId = uuidOf(payload.subarray(1, 1 + ID_BYTES));
    const rest = payload.subarray(1 + ID_BYTES);
    if (payload[0] === KIND_OPEN && rest.length === 0) return { kind: 'open', emailId };
    if (payload[0] === KIND_CLICK && rest.length > 0) return { kind: 'click', emailId, url: rest.toString('utf8') };
    return null;
  }

  private seal(kind: number, emailId: string, rest: Buffer): string {
    if (!UUID.test(emailId)) throw new Error(`tracking tokens carry a lower-case UUID, not ${emailId}`);
    const payload = Buffer.concat([Buffer.from([kind]), Buffer.from(emailId.replaceAll('-', ''), 'hex'), rest]);
    return Buffer.concat([payload, this.mac(payload)]).toString('base64url');
  }

  private mac(payload: Buffer): Buffer {
    return createHmac('sha256', this.key).update(payload).digest().subarray(0, MAC_BYTES);
  }
}

function uuidOf(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
