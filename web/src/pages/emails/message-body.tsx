import { useState } from 'react';
import { Card, EmptyState } from '../../ui/page';
import { SandboxedHtml } from '../../ui/sandboxed-html';
import { Tabs } from '../../ui/tabs';

/**
 * A message's content, sent or received: its HTML (untrusted: only in the sandboxed frame, with
 * nothing remote until the person asks), its text part and its headers, one tab each.
 */
export function MessageBody({
  html,
  text,
  headers,
  headersNote,
  subject,
}: {
  html: string | null;
  text: string | null;
  headers: Record<string, string> | null;
  headersNote?: string;
  subject: string;
}) {
  const [tab, setTab] = useState(html ? 'html' : 'text');
  const headerEntries = Object.entries(headers ?? {});
  return (
    <Card title="Content" id="content">
      <Tabs
        label="Content"
        selected={tab}
        onSelect={setTab}
        tabs={[
          {
            id: 'html',
            label: 'HTML',
            panel: () =>
              html ? (
                <SandboxedHtml html={html} title={`The HTML of “${subject || 'this email'}”`} />
              ) : (
                <EmptyState title="No HTML part" />
              ),
          },
          {
            id: 'text',
            label: 'Text',
            panel: () =>
              text ? (
                <pre className="message-text" tabIndex={0}>
                  {text}
                </pre>
              ) : (
                <EmptyState title="No text part" />
              ),
          },
          {
            id: 'headers',
            label: `Headers (${headerEntries.length})`,
            panel: () => (
              <>
                {headersNote ? <p className="muted">{headersNote}</p> : null}
                {headerEntries.length ? (
                  <pre className="message-headers" tabIndex={0}>
                    {headerEntries.map(([name, value]) => `${name}: ${value}`).join('\n')}
                  </pre>
                ) : (
                  <EmptyState title="No headers to show" />
                )}
              </>
            ),
          },
        ]}
      />
    </Card>
  );
}
