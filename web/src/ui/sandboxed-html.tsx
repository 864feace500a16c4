import { useState } from 'react';

/**
 * An email's HTML in a sandboxed frame (the share page's rules): no allow-scripts, no
 * allow-forms, no allow-same-origin, so its script never runs, its forms never submit and it
 * cannot reach the dashboard. The frame's own policy fetches nothing remote until the person
 * asks ("Load remote images"); the dashboard's policy (which a srcdoc frame inherits as well)
 * allows https images only, so even then nothing but images loads.
 */
const BASE_POLICY = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

function frameDocument(html: string, remoteImages: boolean): string {
  const policy = `${BASE_POLICY}; img-src data:${remoteImages ? ' https:' : ''}`;
  const escaped = policy.replace(/"/g, '&quot;');
  return `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${escaped}"><base target="_blank"><style>body{font-family:system-ui,sans-serif;margin:12px;color:#111}</style></head><body>${html}</body></html>`;
}

/** True when the HTML refers to something remote (an http(s) image or style): the toggle is then offered. */
export const hasRemoteContent = (html: string) =>
  /\b(?:src|href|background)\s*=\s*["']?\s*(?:https?:)?\/\//i.test(html) || /url\(\s*["']?(?:https?:)?\/\//i.test(html);

export function SandboxedHtml({
  html,
  title,
  height = 480,
  allowRemoteToggle = true,
}: {
  html: string;
  title: string;
  height?: number;
  allowRemoteToggle?: boolean;
}) {
  const [remote, setRemote] = useState(false);
  const remoteContent = allowRemoteToggle && hasRemoteContent(html);
  return (
    <div className="sandboxed-html">
      {remoteContent ? (
        <div className="sandbox-bar">
          {remote ? (
            <span>Remote images are shown.</span>
          ) : (
            <span>Remote images are blocked, so the sender cannot tell that you opened this.</span>
          )}
          <button type="button" className="btn btn-ghost btn-small" onClick={() => setRemote((value) => !value)}>
            {remote ? 'Block remote images' : 'Load remote images'}
          </button>
        </div>
      ) : null}
      <iframe
        key={remote ? 'remote' : 'local'}
        title={title}
        sandbox=""
        referrerPolicy="no-referrer"
        srcDoc={frameDocument(html, remote)}
        style={{ height }}
      />
    </div>
  );
}
