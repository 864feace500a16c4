import { useQuery } from '@tanstack/react-query';
import { api, type List } from '../../api/client';
import { contentOf, type VersionContent } from './version-content';
import {
  versionsPath,
  type TemplateDetail,
  type TemplateVersionDetail,
  type TemplateVersionItem,
} from './template-types';

/** What the editor is compared with: nothing (never published), a version being read, or its content. */
export type Baseline =
  | { kind: 'none' }
  | { kind: 'loading' }
  | { kind: 'error'; error: unknown }
  | { kind: 'known'; content: VersionContent; version: TemplateVersionItem };

const getVersion = (templateId: string, versionId: string, signal: AbortSignal) =>
  api.get<TemplateVersionDetail>(`${versionsPath(templateId)}/${encodeURIComponent(versionId)}`, { signal });

/**
 * The version the diff compares the editor with, read from the API so it survives a reload:
 * the one chosen in the versions card (`chosenId`), else the published one. Versions after the
 * published one are at most the open draft (an edit of the published version opens one, later
 * edits change it in place), so the newest two always include the published version.
 */
export function useBaseline(template: TemplateDetail, chosenId: string): Baseline {
  const path = versionsPath(template.id);
  const published = template.status === 'published' && !chosenId;
  const query = useQuery({
    queryKey: [path, 'baseline', chosenId || 'published', template.published_at],
    enabled: published || Boolean(chosenId),
    queryFn: async ({ signal }) => {
      if (chosenId) return getVersion(template.id, chosenId, signal);
      const newest = await api.get<List<TemplateVersionItem>>(path, { query: { limit: 2 }, signal });
      const item = newest.data.find((version) => version.published);
      return item ? getVersion(template.id, item.id, signal) : null;
    },
  });
  if (!published && !chosenId) return { kind: 'none' };
  if (query.error) return { kind: 'error', error: query.error };
  if (!query.data) return query.isLoading ? { kind: 'loading' } : { kind: 'none' };
  return { kind: 'known', content: contentOf(query.data), version: query.data };
}
