import { sendEmailSchema, type SendEmailInput } from '../emails/email.schemas.js';
import type { TlsReportMail } from './report-delivery.js';

/**
 * A report mail as the send path's input: RFC 8460 5.3's subject and TLS-Report headers, a short
 * text part, and the gzipped report attached as application/tlsrpt+gzip under its conventional
 * name. The send path composes multipart/mixed: RFC 8460 5.3 asks for multipart/report;
 * report-type=tlsrpt, which the send path cannot write yet (a known gap, see the docs).
 */
export function reportMailInput(from: string, mail: TlsReportMail): SendEmailInput {
  return sendEmailSchema.parse({
    from,
    to: [mail.to],
    subject: mail.subject,
    text: mail.text,
    headers: mail.headers,
    attachments: [
      {
        filename: mail.attachment.filename,
        content: mail.attachment.content.toString('base64'),
        content_type: mail.attachment.contentType,
      },
    ],
  });
}
