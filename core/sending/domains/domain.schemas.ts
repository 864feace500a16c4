import { z } from 'zod';
import { isLabel } from '../../../lib/dns/hostname.js';
import { pageQueryShape, withPageRules } from '../../shared/pagination/list-query.js';
import { REGIONS } from '../../platform/teams/team.types.js';

const label = (what: string) =>
  z
    .string()
    .transform((value) => value.trim().toLowerCase())
    .refine(isLabel, `${what} must be a single DNS label: letters, digits and hyphens, 1 to 63 characters`);

const capability = z.enum(['enabled', 'disabled']);

export const createDomainSchema = z
  .object({
    name: z
      .string()
      .min(1, 'must not be empty')
      .max(253)
      .describe(
        "The domain name, e.g. mail.example.com (IDN allowed). Refused with 422 validation_error: a public suffix (co.uk, com, github.io; the Public Suffix List, private section included), the appliance's own host names (mailbox simulator, MTA and HELO names, inbound MX, tracking host) and names under them, and names with bidirectional-control or zero-width characters.",
      ),
    region: z.enum(REGIONS).default('us-east-1'),
    open_tracking: z.boolean().default(false),
    click_tracking: z.boolean().default(false),
    tracking_subdomain: label('tracking_subdomain').default('links'),
    custom_return_path: label('custom_return_path').optional(),
    receiving_host: z
      .string()
      .transform((value) => value.trim().toLowerCase())
      .refine((value) => value === '@' || isLabel(value), 'receiving_host must be @ or a single DNS label')
      .default('@'),
    confirm_replace_mx: z.boolean().default(false),
    tls: z.enum(['opportunistic', 'enforced']).default('opportunistic'),
    capabilities: z.object({ sending: capability.optional(), receiving: capability.optional() }).strict().optional(),
    /** Also publish and sign with an Ed25519 key (RFC 8463) beside the RSA one. */
    dkim_ed25519: z.boolean().default(false),
  })
  .strict();

export const updateDomainSchema = z
  .object({
    open_tracking: z.boolean().optional(),
    click_tracking: z.boolean().optional(),
    tracking_subdomain: label('tracking_subdomain').optional(),
    tls: z.enum(['opportunistic', 'enforced']).optional(),
    capabilities: z.object({ sending: capability.optional(), receiving: capability.optional() }).strict().optional(),
  })
  .strict();

export const rotateDkimSchema = z.object({ algorithm: z.enum(['rsa', 'ed25519']).default('rsa') }).strict();

export const listDomainsQuerySchema = withPageRules(z.object({ ...pageQueryShape }).strict());

export type CreateDomainInput = z.infer<typeof createDomainSchema>;
export type UpdateDomainInput = z.infer<typeof updateDomainSchema>;
