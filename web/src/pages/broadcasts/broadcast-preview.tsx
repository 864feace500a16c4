import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { api } from '../../api/client';
import { ErrorMessage } from '../../ui/error-message';
import { SandboxedHtml } from '../../ui/sandboxed-html';
import { Tabs } from '../../ui/tabs';
import type { BroadcastPreview as Preview } from './broadcast-types';
import type { Draft } from './broadcast-draft';
import { useDebounced } from './use-debounced';
import { usePreviewContacts } from './use-audience';

/**
 * The message exactly as one chosen contact will receive it, rendered by the appliance
 * (POST /broadcasts/{id}/preview, the fan-out's own code) from what is in the editor now:
 * merge values and fallbacks, the hidden preview line, the footer and unsubscribe link.
 */
export function BroadcastPreview({ broadcastId, draft }: { broadcastId: string; draft: Draft }) {
  const contacts = usePreviewContacts(draft.segment_id);
  const [contactId, setContactId] = useState('');
  const [tab, setTab] = useState('html');
  const selectId = useId();
  const first = contacts.data?.data[0]?.id ?? '';
  useEffect(() => {
    // The first contact of the segment until the person picks one still in the list.
    if (!contacts.data?.data.some((c) => c.id === contactId)) setContactId(first);
  }, [contacts.data, contactId, first]);
  const content = useDebounced(
    {
      subject: draft.subject,
      preview_text: draft.preview_text || null,
      html: draft.html || null,
      text: draft.text || null,
    },
    300,
  );
  const preview = useQuery({
    queryKey: ['/broadcasts', broadcastId, 'preview', contactId, content],
    queryFn: ({ signal }) =>
      api.post<Preview>(
        `/broadcasts/${broadcastId}/preview`,
        { contact_id: contactId, ...content, subject: content.subject || undefined },
        { signal },
      ),
    enabled: Boolean(contactId),
    placeholderData: keepPreviousData,
    retry: false,
  });
  const chosen = contacts.data?.data ?? [];
  return (
    <div className="stack" aria-busy={preview.isFetching || undefined}>
      <div className="field">
        <label htmlFor={selectId}>Preview for contact</label>
        <select id={selectId} value={contactId} onChange={(e) => setContactId(e.target.value)}>
          {chosen.length === 0 ? <option value="">No contacts in this segment</option> : null}
          {chosen.map((c) => (
            <option key={c.id} value={c.id}>
              {c.email}
              {c.first_name ? ` (${[c.first_name, c.last_name].filter(Boolean).join(' ')})` : ''}
            </option>
          ))}
        </select>
      </div>
      <ErrorMessage error={contacts.error ?? preview.error} title="The preview could not be rendered." />
      {preview.data ? (
        <>
          <p className="preview-subject" data-testid="preview-subject">
            <span className="muted">Subject: </span>
            <strong>{preview.data.subject}</strong>
          </p>
          <Tabs
            label="Preview"
            selected={tab}
            onSelect={setTab}
            tabs={[
              {
                id: 'html',
                label: 'HTML',
                panel: () =>
                  preview.data.html !== null ? (
                    <SandboxedHtml html={preview.data.html} title="Preview of the broadcast for the chosen contact" />
                  ) : (
                    <p className="muted">No HTML part.</p>
                  ),
              },
              {
                id: 'text',
                label: 'Text',
                panel: () =>
                  preview.data.text !== null ? (
                    <pre className="preview-text">{preview.data.text}</pre>
                  ) : (
                    <p className="muted">No text part.</p>
                  ),
              },
              {
                id: 'headers',
                label: 'Headers',
                panel: () => (
                  <pre className="preview-text">
                    {Object.entries(preview.data.headers)
                      .map(([name, value]) => `${name}: ${value}`)
                      .join('\n')}
                  </pre>
                ),
              },
            ]}
          />
        </>
      ) : chosen.length === 0 ? (
        <p className="muted">Add contacts to the segment to preview the broadcast for one of them.</p>
      ) : null}
    </div>
  );
}
