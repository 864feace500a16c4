import { MissingRequiredFieldError, ValidationError } from '../../../lib/errors.js';
import type { BrandKit } from '../../platform/teams/team.types.js';
import { brandValues, renderText } from './placeholders.js';
import type { TemplateVersion } from './template.types.js';

export const MAX_VARIABLE_VALUE_CHARS = 2000;

export type RenderedTemplate = { subject: string | null; html: string; text: string | null };

/**
 * Renders a template version for one send. Every declared variable takes the value sent, else
 * its fallback; one with neither is 422 missing_required_field. Values are strings or numbers of
 * at most 2000 characters. Brand tokens come from the team's kit (with the template's overrides)
 * and cannot be overridden per send.
 */
export function renderTemplate(
  version: TemplateVersion,
  sent: Record<string, unknown>,
  brand: BrandKit,
): RenderedTemplate {
  const values: Record<string, unknown> = {};
  const missing: string[] = [];
  for (const variable of version.variables) {
    if (Object.hasOwn(sent, variable.key)) {
      const value = sent[variable.key];
      if ((typeof value !== 'string' && typeof value !== 'number') || String(value).length > MAX_VARIABLE_VALUE_CHARS) {
        throw new ValidationError(
          `template.variables.${variable.key} must be a string or number of at most ${MAX_VARIABLE_VALUE_CHARS} characters`,
          {
            errors: [
              {
                path: `template.variables.${variable.key}`,
                message: `must be a string or number of at most ${MAX_VARIABLE_VALUE_CHARS} characters`,
              },
            ],
          },
        );
      }
      values[variable.key] =
        variable.type === 'number' && typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))
          ? Number(value)
          : value;
    } else if (variable.fallback_value !== null && variable.fallback_value !== undefined) {
      values[variable.key] = variable.fallback_value;
    } else {
      missing.push(variable.key);
    }
  }
  if (missing.length > 0) {
    throw new MissingRequiredFieldError(
      `No value and no fallback for template variable${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`,
      {
        errors: missing.map((key) => ({
          path: `template.variables.${key}`,
          message: 'is required (it has no fallback_value)',
        })),
      },
    );
  }
  const tokens = brandValues(brand);
  return {
    subject: version.subject === null ? null : renderText(version.subject, values, tokens, 'text'),
    html: renderText(version.html, values, tokens, 'html'),
    text: version.text === null ? null : renderText(version.text, values, tokens, 'text'),
  };
}
