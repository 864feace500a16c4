import { z } from 'zod';
import { pageQueryShape, withPageRules } from '../shared/pagination/list-query.js';

/** A DNS name as a covered e-mail domain: lower-cased, no trailing dot, at least one dot. */
const domainName = z
  .string()
  .trim()
  .toLowerCase()
  .transform((value) => value.replace(/\.$/, ''))
  .pipe(
    z
      .string()
      .max(253, 'must be at most 253 characters')
      .regex(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/, 'must be a domain name'),
  );

export const putSsoSchema = z
  .object({
    issuer: z.string().trim().min(1, 'is required').max(2048, 'must be at most 2048 characters'),
    client_id: z.string().trim().min(1, 'is required').max(255, 'must be at most 255 characters'),
    client_secret: z.string().min(1, 'must not be empty').max(4096, 'must be at most 4096 characters').optional(),
    domains: z
      .array(domainName)
      .min(1, 'must name at least one domain')
      .max(50, 'must name at most 50 domains')
      .transform((list) => [...new Set(list)].sort()),
  })
  .strict();
export type PutSsoInput = z.output<typeof putSsoSchema>;

export const patchSsoSchema = z
  .object({ active: z.boolean().optional(), enforced: z.boolean().optional() })
  .strict()
  .refine((value) => value.active !== undefined || value.enforced !== undefined, 'send active or enforced');
export type PatchSsoInput = z.output<typeof patchSsoSchema>;

export const discoverSsoSchema = z
  .object({ email: z.string().trim().email('must be an e-mail address').max(320) })
  .strict();

/** What the provider sends back to the redirect URI (RFC 6749 4.1.2, RFC 9207 `iss`). */
export const ssoCallbackQuerySchema = z.object({
  code: z.string().max(4096).optional(),
  state: z.string().max(512).optional(),
  iss: z.string().max(2048).optional(),
  error: z.string().max(255).optional(),
  error_description: z.string().max(1024).optional(),
});
export type SsoCallbackQuery = z.output<typeof ssoCallbackQuerySchema>;

export const ssoSignInsQuerySchema = withPageRules(z.object(pageQueryShape).strict());
