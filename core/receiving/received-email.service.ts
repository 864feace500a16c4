import type { FileBlobStore } from '../../lib/blob-store.js';
import type { Clock } from '../../lib/clock.js';
import { NotFoundError } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import type { SegmentSpool } from '../../lib/spool/segment-spool.js';
import { parseSpoolRef } from '../../lib/spool/spool-ref-text.js';
import { PLANS } from '../platform/plans/plan.catalog.js';
import type { DownloadLinks } from '../sending/emails/download-links.js';
import { RAW_NAMESPACE } from './inbound-intake.js';
import type { ReceivedEmailFilter, ReceivedEmailRepository } from './received-email.repository.js';
import type { ReceivedAttachment, ReceivedEmail } from './received-email.types.js';
import { headerMapOf, parseReceived } from './received-message.js';

export type Link = { url: string; expiresAt: Date };
export type ReceivedEmailDetail = {
  email: ReceivedEmail;
  html: string | null;
  text: string | null;
  headers: Record<string, string> | null;
  raw: Link | null;
};

const attachmentLinkId = (emailId: string, attachmentId: string) => `${emailId}/attachments/${attachmentId}`;

/** Received mail as the API reads it: lists, one message with its bodies, attachments, the raw source. */
export class ReceivedEmailService {
  constructor(
    private readonly deps: {
      clock: Clock;
      /** Raw messages received before issue 37 (files); later ones are spool records. */
      blobs: FileBlobStore;
      spool: Pick<SegmentSpool, 'read'>;
      links: DownloadLinks;
      repository: ReceivedEmailRepository;
    },
  ) {}

  list(teamId: string, filter: ReceivedEmailFilter) {
    return this.deps.repository.list(teamId, filter);
  }

  async find(teamId: string, id: string): Promise<ReceivedEmail> {
    const email = isUuid(id) ? await this.deps.repository.findInTeam(teamId, id.toLowerCase()) : undefined;
    if (!email) throw new NotFoundError('Received email not found');
    return email;
  }

  /** One message: header fields from the row, bodies and headers parsed from the raw source. */
  async get(teamId: string, id: string, options: { keepCidLinks?: boolean } = {}): Promise<ReceivedEmailDetail> {
    const email = await this.find(teamId, id);
    const raw = await this.rawOf(email);
    if (!raw) return { email, html: null, text: null, headers: null, raw: null };
    const mail = await parseReceived(raw, options);
    return {
      email,
      html: typeof mail.html === 'string' ? mail.html : null,
      text: mail.text ?? null,
      headers: headerMapOf(mail),
      raw: this.deps.links.create(email.id, this.deps.clock.now(), 'received-raw'),
    };
  }

  async attachments(teamId: string, id: string): Promise<Array<{ attachment: ReceivedAttachment; link: Link }>> {
    const email = await this.find(teamId, id);
    const now = this.deps.clock.now();
    return email.attachments.map((attachment) => ({
      attachment,
      link: this.deps.links.create(attachmentLinkId(email.id, attachment.id), now, 'received-attachment'),
    }));
  }

  async attachment(teamId: string, id: string, attachmentId: string) {
    const found = (await this.attachments(teamId, id)).find((a) => a.attachment.id === attachmentId.toLowerCase());
    if (!found) throw new NotFoundError('Attachment not found');
    return found;
  }

  /** A received email's attachments with their bytes, in order (a forward from an inbox sends them on). */
  async attachmentContents(teamId: string, id: string) {
    const email = await this.find(teamId, id);
    const raw = await this.rawOf(email);
    const parsed = raw && email.attachments.length > 0 ? (await parseReceived(raw)).attachments : [];
    return email.attachments.map((attachment) => ({ attachment, bytes: parsed[attachment.index]?.content ?? null }));
  }

  /** The raw-source link: a valid, unexpired signature gives the message exactly as received. */
  /** The raw message behind a signed link, with its team (whose quota decides whether it is served). */
  async downloadRaw(id: string, expires: string, signature: string): Promise<{ teamId: string; bytes: Buffer }> {
    const email = await this.byValidLink(id, id, expires, signature, 'received-raw');
    const raw = email ? await this.rawOf(email) : null;
    if (!email || !raw) throw new NotFoundError('Message not found or link expired');
    return { teamId: email.teamId, bytes: raw };
  }

  async downloadAttachment(id: string, attachmentId: string, expires: string, signature: string) {
    const linkId = attachmentLinkId(id.toLowerCase(), attachmentId.toLowerCase());
    const email = isUuid(attachmentId)
      ? await this.byValidLink(id, linkId, expires, signature, 'received-attachment')
      : undefined;
    const attachment = email?.attachments.find((a) => a.id === attachmentId.toLowerCase());
    const raw = email && attachment ? await this.rawOf(email) : null;
    const content = raw ? (await parseReceived(raw)).attachments[attachment!.index]?.content : undefined;
    if (!attachment || !content) throw new NotFoundError('Attachment not found or link expired');
    return { teamId: email!.teamId, attachment, bytes: content };
  }

  private async byValidLink(
    id: string,
    linkId: string,
    expires: string,
    signature: string,
    kind: 'received-raw' | 'received-attachment',
  ): Promise<ReceivedEmail | undefined> {
    const now = this.deps.clock.now();
    if (!isUuid(id) || !this.deps.links.verify(linkId.toLowerCase(), expires, signature, now, kind)) return undefined;
    return this.deps.repository.findById(id.toLowerCase());
  }

  private rawOf(email: ReceivedEmail): Promise<Buffer | null> {
    if (!email.rawBlob) return Promise.resolve(null);
    const record = parseSpoolRef(email.rawBlob);
    return record ? this.deps.spool.read(record) : this.deps.blobs.get(RAW_NAMESPACE, email.rawBlob);
  }

  /** Whether a received email's raw message is a record of this spool segment (the spool's retention asks). */
  spoolSegmentReferenced(segment: string): Promise<boolean> {
    return this.deps.repository.refersToSpoolSegment(segment);
  }

  /**
   * Retention: rows past the team plan's window (and of teams gone), then raw message files no
   * row refers to. Raw messages in the spool go with their segment, when the spool's sweep
   * (EmailService.purgeExpired) finds no email and no received email referring to it.
   */
  async purgeExpired(batch = 500): Promise<{ emails: number; raw: number }> {
    const now = this.deps.clock.now();
    let emails = 0;
    let raw = 0;
    for (const plan of [
      ...PLANS.map((p) => ({ code: p.code as string | null, days: p.limits.retention_days })),
      { code: null, days: 0 },
    ]) {
      const before = new Date(now.getTime() - plan.days * 86_400_000);
      for (;;) {
        const expired = await this.deps.repository.expired(plan.code, before, batch);
        if (expired.length === 0) break;
        await this.deps.repository.deleteIds(expired.map((row) => row.id));
        const blobs = [
          ...new Set(expired.map((row) => row.rawBlob).filter((b): b is string => b !== null && !parseSpoolRef(b))),
        ];
        for (const blob of await this.deps.repository.unreferencedBlobs(blobs))
          await this.deps.blobs.delete(RAW_NAMESPACE, blob);
        emails += expired.length;
        raw += blobs.length;
        if (expired.length < batch) break;
      }
    }
    return { emails, raw };
  }
}
