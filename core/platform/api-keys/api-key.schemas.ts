import { z } from 'zod';
import { isUuid } from '../../../lib/ids.js';
import { oneLine } from '../../../lib/validation.js';
import { pageQueryShape, searchParam, withPageRules } from '../../shared/pagination/list-query.js';

export const createApiKeySchema = z
  .object({
    name: oneLine(1, 255),
    permission: z.enum(['full_access', 'sending_access']).default('full_access'),
    domain_id: z.string().refine(isUuid, 'must be a domain id').optional(),
  })
  .strict()
  .superRefine((value, ctx) => {
    if (value.domain_id !== undefined && value.permission !== 'sending_access') {
      ctx.addIssue({
        code: 'custom',
        path: ['domain_id'],
        message: 'only a sending_access key can be pinned to a domain',
      });
    }
  });

export const renameApiKeySchema = z.object({ name: oneLine(1, 255) }).strict();

export const listApiKeysQuerySchema = withPageRules(
  z
    .object({
      ...pageQueryShape,
      status: z.enum(['active', 'revoked', 'all']).optional(),
      search: searchParam(255).optional(),
      permission: z.enum(['full_access', 'sending_access']).optional(),
    })
    .strict(),
);

export type CreateApiKeyInput = z.infer<typeof createApiKeySchema>;
export type ListApiKeysQuery = z.infer<typeof listApiKeysQuerySchema>;
