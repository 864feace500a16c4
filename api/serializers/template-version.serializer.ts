import type { Template, TemplateVersion, TemplateVersionSummary } from '../../core/sending/templates/template.types.js';

/** A version as listed: which one sends use (`published`) and which one edits go to (`current`). */
export function serializeTemplateVersionItem(template: Template, version: TemplateVersionSummary) {
  return {
    object: 'template_version' as const,
    id: version.id,
    template_id: template.id,
    version: version.version,
    published: version.id === template.publishedVersionId,
    current: version.id === template.currentVersionId,
    subject: version.subject,
    from: version.from,
    reply_to: version.replyTo,
    created_at: version.createdAt.toISOString(),
    updated_at: version.updatedAt.toISOString(),
  };
}

/** One version with its content, in the fields GET /templates/:id uses for the current one. */
export function serializeTemplateVersion(template: Template, version: TemplateVersion) {
  return {
    ...serializeTemplateVersionItem(template, version),
    html: version.html,
    text: version.text,
    variables: version.variables,
  };
}
