import { z } from 'zod';
import { oneLine } from '../../../lib/validation.js';
import { parseMailbox } from '../../shared/addresses/mailbox.js';
import { pageQueryShape, searchParam, withPageRules } from '../../shared/pagination/list-query.js';
import { BUTTON_STYLES, FONTS } from '../../platform/teams/team.types.js';
import { MAX_VARIABLE_VALUE_CHARS } from './template-renderer.js';
import { VARIABLE_TYPES } from './template.types.js';

const UUID_SHAPED = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const aliasSchema = z
  .string()
  .max(63, 'must be at most 63 characters')
  .regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be lower-case letters, digits, - and _, starting with a letter or digit')
  .refine((value) => !UUID_SHAPED.test(value), 'must not look like a UUID');

const mailbox = z.string().refine((value) => parseMailbox(value) !== undefined, 'must be an address or Name <address>');
const subject = z
  .string()
  .refine((value) => Buffer.byteLength(value, 'utf8') <= 998, 'must be at most 998 bytes')
  .refine((value) => !/[\r\n]/.test(value), 'must be one line');

const variable = z
  .object({
    key: z
      .string()
      .regex(/^[A-Za-z0-9_]+$/, 'must be letters, digits and underscore')
      .max(100),
    type: z.enum(VARIABLE_TYPES),
    fallback_value: z.unknown().optional(),
  })
  .strict()
  .superRefine((value, ctx) => {
    const fallback = value.fallback_value;
    if (fallback === undefined || fallback === null) return;
    const fits =
      value.type === 'list'
        ? Array.isArray(fallback)
        : value.type === 'object'
          ? typeof fallback === 'object' && !Array.isArray(fallback)
          : typeof fallback === value.type;
    if (!fits) ctx.addIssue({ code: 'custom', path: ['fallback_value'], message: `must be a ${value.type} (or null)` });
    // The same bound as a value given at send time; objects and lists count as compact JSON.
    else if ((typeof fallback === 'string' ? fallback : JSON.stringify(fallback)).length > MAX_VARIABLE_VALUE_CHARS) {
      ctx.addIssue({
        code: 'custom',
        path: ['fallback_value'],
        message: `must be at most ${MAX_VARIABLE_VALUE_CHARS} characters${typeof fallback === 'object' ? ' as JSON' : ''}`,
      });
    }
  });

const variables = z
  .array(variable)
  .max(200, 'at most 200 variables')
  .superRefine((list, ctx) => {
    const seen = new Set<string>();
    list.forEach((v, i) => {
      if (seen.has(v.key)) ctx.addIssue({ code: 'custom', path: [i, 'key'], message: `${v.key} is declared twice` });
      seen.add(v.key);
    });
  });

/**
 * brand_overrides: an unknown field or a font/button_style outside its list is a 400 here; the
 * other value rules (colours, URL, one-line text) are checked by the service as 422 invalid_parameter.
 */
export const brandOverridesSchema = z
  .object({
    logo_url: z.string().nullable().optional(),
    primary_color: z.string().nullable().optional(),
    accent_color: z.string().nullable().optional(),
    font: z.enum(FONTS).nullable().optional(),
    button_style: z.enum(BUTTON_STYLES).nullable().optional(),
    company_name: z.string().nullable().optional(),
    address: z.string().nullable().optional(),
    footer_text: z.string().nullable().optional(),
  })
  .strict();

const content = {
  from: mailbox.nullable().optional(),
  subject: subject.nullable().optional(),
  html: z.string().min(1, 'must not be empty').optional(),
  text: z.string().nullable().optional(),
  variables: variables.optional(),
  reply_to: z
    .union([mailbox, z.array(mailbox).max(50)])
    .nullable()
    .optional(),
};

export const createTemplateSchema = z
  .object({
    name: oneLine(1, 255),
    alias: aliasSchema.nullable().optional(),
    ...content,
    starter: z.string().optional(),
    brand_overrides: brandOverridesSchema.nullable().optional(),
  })
  .strict();

export const updateTemplateSchema = z
  .object({
    name: oneLine(1, 255).optional(),
    alias: aliasSchema.nullable().optional(),
    ...content,
    brand_overrides: brandOverridesSchema.nullable().optional(),
  })
  .strict();

export const listTemplatesQuerySchema = withPageRules(
  z
    .object({
      ...pageQueryShape,
      search: searchParam(200).optional(),
      status: z.enum(['draft', 'published']).optional(),
    })
    .strict(),
);

/** GET /templates/:id/versions: only the page parameters; the cursors are version ids. */
export const listTemplateVersionsQuerySchema = withPageRules(z.object({ ...pageQueryShape }).strict());

export type CreateTemplateInput = z.infer<typeof createTemplateSchema>;
export type UpdateTemplateInput = z.infer<typeof updateTemplateSchema>;
export type ListTemplatesQuery = z.infer<typeof listTemplatesQuerySchema>;
export type ListTemplateVersionsQuery = z.infer<typeof listTemplateVersionsQuerySchema>;
