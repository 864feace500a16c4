import type { SharedEmail } from '../../core/sending/emails/share/shared-email.types.js';
import { escapeHtml } from '../../lib/text/escape-html.js';

/**
 * The policy of the share page and of the email inside it: no script, no fetch of any kind
 * (remote images, fonts, stylesheets, beacons), images only when embedded as data: URIs, inline
 * styles allowed (emails are styled inline). The email's own markup is untrusted: it runs in a
 * sandboxed frame (no allow-scripts, opaque origin), which carries the same policy again in its
 * own <meta>, so the content stays inert even if the frame's inheritance of the page's policy
 * were ever lost.
 */
export const SHARE_PAGE_CSP =
  "default-src 'none'; img-src data:; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
const FRAME_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

/**
 * The document shown in the frame. Links open nowhere: `target=_blank` without allow-popups is
 * blocked by the sandbox, so a click neither navigates the frame nor leaves the page.
 */
function frameDocument(html: string): string {
  return (
    '<!doctype html><html><head><meta charset="utf-8">' +
    `<meta http-equiv="Content-Security-Policy" content="${FRAME_CSP}">` +
    '<base target="_blank"></head><body>' +
    html +
    '</body></html>'
  );
}

const row = (label: string, value: string) => `<dt>${label}</dt><dd>${escapeHtml(value)}</dd>`;

/** The read-only view of one shared email: header summary, HTML part, text part, attachment names. */
export function emailSharePage(email: SharedEmail): string {
  const headers = [
    row('From', email.from),
    row('To', email.to.join(', ')),
    ...(email.cc.length > 0 ? [row('Cc', email.cc.join(', '))] : []),
    row('Subject', email.subject),
    row('Date', email.date.toUTCString()),
  ].join('\n');
  const htmlPart =
    email.html !== null
      ? `<section aria-label="HTML version"><h2>HTML</h2>
<iframe sandbox title="Email content" referrerpolicy="no-referrer" srcdoc="${escapeHtml(frameDocument(email.html))}"></iframe></section>`
      : '';
  const textPart =
    email.text !== null
      ? `<section aria-label="Text version"><h2>Text</h2><pre>${escapeHtml(email.text)}</pre></section>`
      : '';
  const attachments =
    email.attachmentNames.length > 0
      ? `<section aria-label="Attachments"><h2>Attachments</h2><ul>${email.attachmentNames
          .map((name) => `<li>${escapeHtml(name)}</li>`)
          .join('')}</ul></section>`
      : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(email.subject)}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #111827; background: #f9fafb; margin: 0; }
main { max-width: 60rem; margin: 1.5rem auto; background: #fff; padding: 1.25rem 1.5rem; border-radius: 8px; border: 1px solid #e5e7eb; }
h1 { font-size: 1.35rem; margin: 0 0 1rem; overflow-wrap: anywhere; }
h2 { font-size: .8rem; text-transform: uppercase; letter-spacing: .05em; color: #6b7280; margin: 1.5rem 0 .5rem; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: 0; }
dt { color: #6b7280; }
dd { margin: 0; overflow-wrap: anywhere; }
iframe { width: 100%; height: 70vh; border: 1px solid #e5e7eb; border-radius: 6px; background: #fff; resize: vertical; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f3f4f6; padding: .75rem; border-radius: 6px; }
.note { color: #6b7280; font-size: .85rem; }
</style>
</head>
<body>
<main>
<h1>${escapeHtml(email.subject)}</h1>
<dl>
${headers}
</dl>
${htmlPart}
${textPart}
${attachments}
<p class="note">A read-only copy shared through a link. Scripts and remote images in the email are not loaded.</p>
</main>
</body>
</html>
`;
}
