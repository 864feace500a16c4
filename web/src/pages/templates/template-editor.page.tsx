import { useQuery } from '@tanstack/react-query';
import { api, ApiError } from '../../api/client';
import type { PageProps } from '../../routes';
import { Link } from '../../router';
import { ErrorMessage } from '../../ui/error-message';
import { EmptyState, Loading, PageHeader } from '../../ui/page';
import { TemplateEditor } from './template-editor';
import { templateKey, type TemplateDetail } from './template-types';

/** /templates/:id (an id or an alias): the editor, preview, diff and test send of one template. */
export default function TemplateEditorPage({ params }: PageProps) {
  const id = params.id!;
  const template = useQuery({
    queryKey: templateKey(id),
    queryFn: ({ signal }) => api.get<TemplateDetail>(`/templates/${encodeURIComponent(id)}`, { signal }),
    // The editor holds the working copy: a background refetch must not replace what is typed.
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  });
  if (template.isLoading) return <Loading label="Opening the template…" />;
  if (template.error || !template.data) {
    const missing = template.error instanceof ApiError && template.error.status === 404;
    return (
      <>
        <PageHeader
          title={missing ? 'Template not found' : 'Template'}
          back={{ to: '/templates', label: 'Templates' }}
        />
        {missing ? (
          <EmptyState title="No template with this id or alias in this team">
            It may have been deleted. <Link to="/templates">See every template</Link>.
          </EmptyState>
        ) : (
          <ErrorMessage error={template.error} />
        )}
      </>
    );
  }
  return <TemplateEditor key={template.data.id} template={template.data} cacheKey={templateKey(id)} />;
}
