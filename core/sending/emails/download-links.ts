import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Expiring download links for attachments of sent emails: the URL carries the expiry and an
 * HMAC of (attachment id, expiry) under a key derived from the master key, so the download
 * route needs no credential and a link stops working at expires_at.
 */
export const LINK_TTL_MS = 60 * 60 * 1000;

export class DownloadLinks {
  private readonly key: Buffer;

  constructor(masterKey: string, private readonly publicUrl: () => string) {
    this.key = createHmac('sha256', 'mailroom-download-links').update(masterKey).digest();
  }

  private sign(attachmentId: string, expires: number): string {
    return createHmac('sha256', this.key).update(`${attachmentId}.${expires}`).digest('base64url');
  }

  create(attachmentId: string, now: Date): { url: string; expiresAt: Date } {
    const expires = Math.floor((now.getTime() + LINK_TTL_MS) / 1000);
    const url = `${this.publicUrl().replace(/\/+$/, '')}/attachments/${attachmentId}/download?expires=${expires}&signature=${this.sign(attachmentId, expires)}`;
    return { url, expiresAt: new Date(expires * 1000) };
  }

  verify(attachmentId: string, expires: string, signature: string, now: Date): boolean {
    if (!/^\d{1,12}$/.test(expires) || Number(expires) * 1000 < now.getTime()) return false;
    const expected = Buffer.from(this.sign(attachmentId, Number(expires)));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}
