import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { api } from '../../api/client';
import { SandboxedHtml } from '../../ui/sandboxed-html';
import { Tabs } from '../../ui/tabs';
import { brandValues, renderText, type BrandKit } from './placeholders';
import { sampleValues, type Draft } from './template-draft';
import type { BrandOverrides } from './template-types';

/** The team's brand kit (GET /team), for the {{brand.*}} tokens; the neutral defaults if it cannot be read. */
function useBrandKit(): BrandKit {
  const team = useQuery({
    queryKey: ['/team'],
    queryFn: () => api.get<{ brand_kit: BrandKit }>('/team'),
    staleTime: 60_000,
  });
  return team.data?.brand_kit ?? {};
}

/**
 * The message as a send would render it, from what is in the editor now: the sample values (or
 * fallbacks) in place of the placeholders, by the appliance's rules (placeholders.ts), the HTML
 * in the sandboxed frame.
 */
export function TemplatePreview({ draft, overrides }: { draft: Draft; overrides: BrandOverrides | null }) {
  const [tab, setTab] = useState('html');
  const kit = useBrandKit();
  const rendered = useMemo(() => {
    const values = sampleValues(draft, 'preview');
    const brand = brandValues({ ...kit, ...(overrides ?? {}) });
    return {
      subject: renderText(draft.subject, values, brand, 'text'),
      html: renderText(draft.html, values, brand, 'html'),
      text: renderText(draft.text, values, brand, 'text'),
    };
  }, [draft, kit, overrides]);
  return (
    <div className="stack">
      <p className="preview-subject">
        <span className="muted">Subject: </span>
        <strong>{rendered.subject || <span className="muted">(none: a send must give one)</span>}</strong>
      </p>
      <Tabs
        label="Preview"
        selected={tab}
        onSelect={setTab}
        tabs={[
          {
            id: 'html',
            label: 'HTML',
            panel: () => <SandboxedHtml html={rendered.html} title="Preview of the template's HTML" height={520} />,
          },
          {
            id: 'text',
            label: 'Text',
            panel: () =>
              rendered.text ? (
                <pre className="preview-text">{rendered.text}</pre>
              ) : (
                <p className="muted">No text part: mail clients that show text only get none.</p>
              ),
          },
        ]}
      />
    </div>
  );
}
