import { InvalidParameterError, MissingRequiredFieldError, ValidationError } from '../../../lib/errors.js';
import { renderTemplate } from '../templates/template-renderer.js';
import type { TemplateService } from '../templates/template.service.js';
import type { Team } from '../../platform/teams/team.types.js';
import type { SendEmailInput } from './email.schemas.js';

export type ResolvedContent = {
  from: string;
  subject: string;
  replyTo: string[] | undefined;
  html: string | null;
  text: string | null;
  templateId: string | null;
  templateVersionId: string | null;
};

const MAX_BODY_BYTES = 2 * 1024 * 1024;

/**
 * What the message says, after merging the template (its published version) under the
 * request: values in the request win; from and subject must exist after the merge.
 */
export async function resolveContent(
  team: Team,
  input: SendEmailInput,
  templates: TemplateService,
): Promise<ResolvedContent> {
  let merged: Omit<ResolvedContent, 'from' | 'subject'> & { from?: string; subject?: string | null } = {
    from: input.from,
    subject: input.subject,
    replyTo: input.reply_to,
    html: input.html ?? null,
    text: input.text ?? null,
    templateId: null,
    templateVersionId: null,
  };
  if (input.template) {
    if (input.html !== undefined || input.text !== undefined) {
      throw new InvalidParameterError('template cannot be combined with html or text', {
        errors: [{ path: 'template', message: 'send html/text or a template, not both' }],
      });
    }
    const { template, version } = await templates.publishedVersion(team.id, input.template.id);
    const rendered = renderTemplate(
      version,
      input.template.variables ?? {},
      templates.effectiveBrand(team.brandKit, template.brandOverrides),
    );
    merged = {
      from: input.from ?? version.from ?? undefined,
      subject: input.subject ?? rendered.subject,
      replyTo: input.reply_to ?? version.replyTo ?? undefined,
      html: rendered.html,
      text: rendered.text,
      templateId: template.id,
      templateVersionId: version.id,
    };
  }
  const missing = [
    ...(merged.from ? [] : ['from']),
    ...(merged.subject ? [] : ['subject']),
    ...(merged.html || merged.text ? [] : ['html']),
  ];
  if (missing.length > 0) {
    throw new MissingRequiredFieldError(
      `Missing required field${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`,
      {
        errors: missing.map((path) => ({
          path,
          message:
            path === 'html'
              ? 'html or text (or a template) is required'
              : 'is required (after the template is applied)',
        })),
      },
    );
  }
  const subject = merged.subject!;
  if (Buffer.byteLength(subject, 'utf8') > 998 || /[\r\n]/.test(subject)) {
    throw new ValidationError('subject must be one line of at most 998 bytes', {
      errors: [{ path: 'subject', message: 'must be one line of at most 998 bytes' }],
    });
  }
  if (Buffer.byteLength(merged.html ?? '', 'utf8') + Buffer.byteLength(merged.text ?? '', 'utf8') > MAX_BODY_BYTES) {
    throw new ValidationError('html and text together must be at most 2 MB', {
      errors: [{ path: 'html', message: 'html and text together exceed 2 MB' }],
    });
  }
  return { ...merged, from: merged.from!, subject };
}
