import { createHmac, timingSafeEqual } from 'node:crypto';
import { base32Decode, base32Encode } from '../../../lib/text/base32.js';

/** What a contact link lets its holder do. */
export type ContactLinkPurpose = 'unsubscribe' | 'preferences';

const PURPOSE_BYTE: Record<ContactLinkPurpose, number> = { unsubscribe: 0x75, preferences: 0x70 };
const ID_BYTES = 16;
const MAC_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/**
 * MAC bytes of a mailto unsubscribe address: the local part holds at most 64 octets, so its
 * token is [contact][broadcast][40-bit MAC] in base32 (60 characters) after `u+`. Guessing a
 * 40-bit MAC one SMTP transaction at a time is out of reach.
 */
const MAIL_MAC_BYTES = 5;
const MAIL_PURPOSE = 0x6d;
const MAIL_LOCAL_PART = /^u\+([a-z2-7]{60})$/i;

/** What a verified link names: its contact, and the broadcast whose email carried it (if any). */
export type LinkSubject = { contactId: string; broadcastId: string | null };

const hexOf = (uuid: string) => Buffer.from(uuid.replaceAll('-', ''), 'hex');
const uuidOf = (bytes: Buffer) => {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

/**
 * The signed per-contact links merged as UNSUBSCRIBE_URL and PREFERENCES_URL. A token is
 * base64url of [purpose (1 byte)][contact id (16 bytes)][broadcast id (16 bytes, in links a
 * broadcast's emails carry)][MAC (16 bytes)], the MAC being HMAC-SHA256 under a key derived
 * from the master key, truncated to 128 bits: nothing is stored per link, a link works until
 * its contact is erased, and a forged or altered one is refused. The broadcast id attributes an
 * unsubscribe to the broadcast it came from.
 */
export class ContactLinks {
  private readonly key: Buffer;

  constructor(
    masterKey: string,
    private readonly publicUrl: () => string,
  ) {
    this.key = createHmac('sha256', 'mailroom-contact-links').update(masterKey).digest();
  }

  token(purpose: ContactLinkPurpose, contactId: string, broadcastId?: string): string {
    for (const id of [contactId, broadcastId ?? contactId])
      if (!UUID.test(id)) throw new Error(`contact links carry lower-case UUIDs, not ${id}`);
    const payload = Buffer.concat([
      Buffer.from([PURPOSE_BYTE[purpose]]),
      hexOf(contactId),
      ...(broadcastId ? [hexOf(broadcastId)] : []),
    ]);
    return Buffer.concat([payload, this.mac(payload)]).toString('base64url');
  }

  unsubscribeUrl(contactId: string, broadcastId?: string): string {
    return `${this.publicUrl()}/unsubscribe/${this.token('unsubscribe', contactId, broadcastId)}`;
  }

  preferencesUrl(contactId: string, broadcastId?: string): string {
    return `${this.publicUrl()}/preferences/${this.token('preferences', contactId, broadcastId)}`;
  }

  /**
   * The local part of the mailto address in a broadcast email's List-Unsubscribe: a mail to
   * `u+<token>@<return-path host>` unsubscribes the contact, attributed to the broadcast.
   */
  unsubscribeLocalPart(contactId: string, broadcastId: string): string {
    for (const id of [contactId, broadcastId])
      if (!UUID.test(id)) throw new Error(`contact links carry lower-case UUIDs, not ${id}`);
    const ids = Buffer.concat([hexOf(contactId), hexOf(broadcastId)]);
    return `u+${base32Encode(Buffer.concat([ids, this.mailMac(ids)]))}`;
  }

  /** The contact and broadcast an unsubscribe address's local part names, or null. */
  subjectOfLocalPart(localPart: string): LinkSubject | null {
    const match = MAIL_LOCAL_PART.exec(localPart);
    const bytes = match ? base32Decode(match[1]!) : null;
    if (!bytes || bytes.length !== 2 * ID_BYTES + MAIL_MAC_BYTES) return null;
    const ids = bytes.subarray(0, 2 * ID_BYTES);
    if (!timingSafeEqual(bytes.subarray(2 * ID_BYTES), this.mailMac(ids))) return null;
    return { contactId: uuidOf(ids.subarray(0, ID_BYTES)), broadcastId: uuidOf(ids.subarray(ID_BYTES)) };
  }

  /** The contact id a token of this purpose names, or null (malformed, altered, other purpose). */
  verify(purpose: ContactLinkPurpose, token: string): string | null {
    return this.subjectOf(purpose, token)?.contactId ?? null;
  }

  /** The contact and broadcast a token of this purpose names, or null. */
  subjectOf(purpose: ContactLinkPurpose, token: string): LinkSubject | null {
    if (!BASE64URL.test(token) || token.length > 88) return null;
    const bytes = Buffer.from(token, 'base64url');
    const idBytes = bytes.length - 1 - MAC_BYTES;
    if ((idBytes !== ID_BYTES && idBytes !== 2 * ID_BYTES) || bytes.toString('base64url') !== token) return null;
    const payload = bytes.subarray(0, 1 + idBytes);
    if (!timingSafeEqual(bytes.subarray(1 + idBytes), this.mac(payload))) return null;
    if (payload[0] !== PURPOSE_BYTE[purpose]) return null;
    return {
      contactId: uuidOf(payload.subarray(1, 1 + ID_BYTES)),
      broadcastId: idBytes === 2 * ID_BYTES ? uuidOf(payload.subarray(1 + ID_BYTES)) : null,
    };
  }

  private mailMac(ids: Buffer): Buffer {
    return this.mac(Buffer.concat([Buffer.from([MAIL_PURPOSE]), ids])).subarray(0, MAIL_MAC_BYTES);
  }

  private mac(payload: Buffer): Buffer {
    return createHmac('sha256', this.key).update(payload).digest().subarray(0, MAC_BYTES);
  }
}
