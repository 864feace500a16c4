/** The API's template shapes (api/serializers/template.serializer.ts), as the dashboard reads them. */
export type VariableType = 'string' | 'number' | 'boolean' | 'object' | 'list';
export const VARIABLE_TYPES: VariableType[] = ['string', 'number', 'boolean', 'object', 'list'];

export type TemplateVariable = { key: string; type: VariableType; fallback_value: unknown };

export type TemplateItem = {
  object: 'template';
  id: string;
  name: string;
  alias: string | null;
  status: 'draft' | 'published';
  published_at: string | null;
  created_at: string;
  updated_at: string;
};

export type BrandOverrides = Record<string, string | null | undefined>;

export type TemplateDetail = TemplateItem & {
  current_version_id: string;
  has_unpublished_versions: boolean;
  from: string | null;
  subject: string | null;
  reply_to: string[] | null;
  html: string;
  text: string | null;
  variables: TemplateVariable[];
  brand_overrides: BrandOverrides | null;
};

/** GET /templates/:id/versions items: no content (GET …/versions/:version_id has it). */
export type TemplateVersionItem = {
  object: 'template_version';
  id: string;
  template_id: string;
  version: number;
  /** The version sends use. */
  published: boolean;
  /** The version edits go to (the template's current_version_id). */
  current: boolean;
  subject: string | null;
  from: string | null;
  reply_to: string[] | null;
  created_at: string;
  updated_at: string;
};

export type TemplateVersionDetail = TemplateVersionItem & {
  html: string;
  text: string | null;
  variables: TemplateVariable[];
};

export type Starter = {
  object: 'starter';
  slug: string;
  name: string;
  description: string;
  subject: string;
  html: string;
  text: string;
  variables: TemplateVariable[];
};

/** The query key of one template (GET /templates/:id); lists use useCursorList's ['/templates', …]. */
export const templateKey = (id: string) => ['/templates', 'detail', id] as const;

/**
 * The versions path of a template; every versions query is keyed under it (useCursorList's
 * [path, 'list', …] included), so one invalidation refreshes them after a save or a publish.
 */
export const versionsPath = (templateId: string) => `/templates/${encodeURIComponent(templateId)}/versions`;
