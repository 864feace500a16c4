import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { api, type List } from '../../api/client';

export type TemplateOption = { id: string; name: string; alias: string | null; status: string };

/** The team's templates (first 100), shared by the send-email form and the nodes that name them. */
export function useTemplates() {
  return useQuery({
    queryKey: ['/templates', 'automation-templates'],
    queryFn: () => api.get<List<TemplateOption>>('/templates', { query: { limit: 100 } }),
  });
}

/** Template names by id and alias: a send-email node reads "template Welcome mail", not an id. */
export function useTemplateNames(): Map<string, string> {
  const templates = useTemplates();
  return useMemo(() => {
    const names = new Map<string, string>();
    for (const t of templates.data?.data ?? []) {
      names.set(t.id, t.name);
      if (t.alias) names.set(t.alias, t.name);
    }
    return names;
  }, [templates.data]);
}
