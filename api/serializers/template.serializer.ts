import type { TemplateView } from '../../core/sending/templates/template.service.js';
import type { Template } from '../../core/sending/templates/template.types.js';
import type { Starter } from '../../core/sending/templates/starters.js';
import { isoOrNull } from '../../db/dialect.js';

export function serializeTemplateItem(template: Template) {
  return {
    object: 'template' as const,
    id: template.id,
    name: template.name,
    alias: template.alias,
    status: template.status,
    published_at: isoOrNull(template.publishedAt),
    created_at: template.createdAt.toISOString(),
    updated_at: template.updatedAt.toISOString(),
  };
}

export function serializeTemplate({ template, current }: TemplateView) {
  return {
    ...serializeTemplateItem(template),
    current_version_id: current.id,
    has_unpublished_versions: template.publishedVersionId !== null && template.publishedVersionId !== current.id,
    from: current.from,
    subject: current.subject,
    reply_to: current.replyTo,
    html: current.html,
    text: current.text,
    variables: current.variables,
    brand_overrides: template.brandOverrides,
  };
}

export function serializeStarter(starter: Starter) {
  return {
    object: 'starter' as const,
    slug: starter.slug,
    name: starter.name,
    description: starter.description,
    subject: starter.subject,
    html: starter.html,
    text: starter.text,
    variables: starter.variables,
  };
}
