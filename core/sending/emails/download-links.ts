import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Expiring download links (attachments of sent emails, and of received ones, and raw received
 * messages): the URL carries the expiry and an HMAC of (kind, id, expiry) under a key derived
 * from the master key, so the download route needs no credential and a link stops working at
 * expires_at. The kind keeps a link to one kind of thing from opening another with the same id.
 */
export const LINK_TTL_MS = 60 * 60 * 1000;

/** What a link opens, and the path (under the API's base URL) that serves it. */
export type LinkKind = 'attachment' | 'received-attachment' | 'received-raw';

const PATHS: Record<LinkKind, (id: string) => string> = {
  attachment: (id) => `/attachments/${id}/download`,
  // id: '<email id>/attachments/<attachment id>'
  'received-attachment': (id) => `/emails/receiving/${id}/download`,
  'received-raw': (id) => `/emails/receiving/${id}/raw`,
};

export class DownloadLinks {
  private readonly key: Buffer;

  constructor(
    masterKey: string,
    private readonly publicUrl: () => string,
  ) {
    this.key = createHmac('sha256', 'mailroom-download-links').update(masterKey).digest();
  }

  private sign(kind: LinkKind, id: string, expires: number): string {
    // Sent attachments sign (id, expiry) alone, as links handed out before kinds existed did.
    const subject = kind === 'attachment' ? `${id}.${expires}` : `${kind}:${id}.${expires}`;
    return createHmac('sha256', this.key).update(subject).digest('base64url');
  }

  create(id: string, now: Date, kind: LinkKind = 'attachment'): { url: string; expiresAt: Date } {
    const expires = Math.floor((now.getTime() + LINK_TTL_MS) / 1000);
    const base = this.publicUrl().replace(/\/+$/, '');
    const url = `${base}${PATHS[kind](id)}?expires=${expires}&signature=${this.sign(kind, id, expires)}`;
    return { url, expiresAt: new Date(expires * 1000) };
  }

  verify(id: string, expires: string, signature: string, now: Date, kind: LinkKind = 'attachment'): boolean {
    if (!/^\d{1,12}$/.test(expires) || Number(expires) * 1000 < now.getTime()) return false;
    const expected = Buffer.from(this.sign(kind, id, Number(expires)));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}
