import { InvalidAttachmentError } from '../../../lib/errors.js';
import type { SafeFetchResult } from '../../../lib/net/safe-fetch.js';
import { contentTypeFromServer, fileNameFromUrl } from './attachment-rules.js';
import type { SendEmailInput } from './email.schemas.js';

export type LoadedAttachment = { filename?: string; content: Buffer; contentType?: string; contentId?: string };

/**
 * Attachments reach the composer only as buffers: exactly one of content (base64) or path
 * (an https URL fetched here, never by the composer).
 */
export async function loadAttachments(
  attachments: NonNullable<SendEmailInput['attachments']>,
  fetchAttachment: (url: string) => Promise<SafeFetchResult>,
): Promise<LoadedAttachment[]> {
  const loaded: LoadedAttachment[] = [];
  for (const [i, attachment] of attachments.entries()) {
    const path = `attachments.${i}`;
    if ((attachment.content === undefined) === (attachment.path === undefined)) {
      throw new InvalidAttachmentError('Each attachment needs exactly one of content and path', {
        errors: [{ path, message: 'send content (base64) or path, exactly one' }],
      });
    }
    if (attachment.path !== undefined) {
      const fetched = await fetchAttachment(attachment.path);
      if (!fetched.ok)
        throw new InvalidAttachmentError(`Attachment ${i} could not be fetched: ${fetched.reason}`, {
          errors: [{ path: `${path}.path`, message: fetched.reason }],
        });
      const filename = attachment.filename ?? fileNameFromUrl(fetched.finalUrl);
      loaded.push({
        filename,
        content: fetched.bytes,
        contentType: attachment.content_type ?? contentTypeFromServer(fetched.contentType),
        contentId: attachment.content_id,
      });
      continue;
    }
    const compact = attachment.content!.replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) {
      throw new InvalidAttachmentError('Attachment content must be base64', {
        errors: [{ path: `${path}.content`, message: 'is not base64' }],
      });
    }
    loaded.push({
      filename: attachment.filename,
      content: Buffer.from(compact, 'base64'),
      contentType: attachment.content_type,
      contentId: attachment.content_id,
    });
  }
  return loaded;
}
