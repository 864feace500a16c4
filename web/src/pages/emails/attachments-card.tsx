import { Card } from '../../ui/page';
import { DataTable } from '../../ui/table';
import { formatBytes, type Attachment } from './email-types';

/**
 * A message's attachments with a download link each: the API hands out signed links valid for
 * an hour (download_url), which the browser opens directly: no cookie or key is needed.
 */
export function AttachmentsCard({ attachments }: { attachments: Attachment[] }) {
  if (attachments.length === 0) return null;
  return (
    <Card title={`Attachments (${attachments.length})`} id="attachments">
      <DataTable
        caption="Attachments"
        rows={attachments}
        rowKey={(attachment) => attachment.id}
        columns={[
          {
            header: 'File',
            cell: (attachment) => attachment.filename || <span className="muted">(no name)</span>,
          },
          { header: 'Type', cell: (attachment) => <code>{attachment.content_type}</code> },
          { header: 'Size', className: 'num', cell: (attachment) => formatBytes(attachment.size) },
          {
            header: 'Shown as',
            cell: (attachment) => attachment.content_disposition ?? '—',
          },
          {
            header: <span className="visually-hidden">Download</span>,
            className: 'nowrap',
            cell: (attachment) =>
              attachment.download_url ? (
                <a
                  className="btn btn-small btn-secondary"
                  href={attachment.download_url}
                  download={attachment.filename ?? true}
                  aria-label={`Download ${attachment.filename ?? 'the attachment'}`}
                >
                  Download
                </a>
              ) : (
                <span className="muted">No link</span>
              ),
          },
        ]}
      />
    </Card>
  );
}
