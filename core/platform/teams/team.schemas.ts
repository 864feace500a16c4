import { z } from 'zod';
import { ISO_COUNTRY_CODES } from '../../../lib/iso-countries.js';
import { oneLine } from '../../../lib/validation.js';
import { BUTTON_STYLES, FONTS } from './team.types.js';

const color = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'must be a six-digit hex colour such as #1a2b3c');
const httpUrl = z
  .string()
  .max(2048)
  .refine((value) => /^https?:\/\//i.test(value) && URL.canParse(value), 'must be an absolute http(s) URL');

export const postalAddressSchema = z
  .object({
    line1: oneLine(1, 200),
    line2: oneLine(0, 200).nullable().optional(),
    city: oneLine(1, 100),
    state: oneLine(0, 100).nullable().optional(),
    postal_code: oneLine(1, 20),
    country: z
      .string()
      .regex(/^[A-Z]{2}$/, 'must be an upper-case ISO 3166-1 alpha-2 code such as US')
      .refine((code) => ISO_COUNTRY_CODES.has(code), 'is not an ISO 3166-1 alpha-2 country code'),
  })
  .strict();

/** brand_kit is sent whole: every field present, null resetting that field to its default. */
export const brandKitSchema = z
  .object({
    logo_url: httpUrl.nullable(),
    primary_color: color.nullable(),
    accent_color: color.nullable(),
    font: z.enum(FONTS).nullable(),
    button_style: z.enum(BUTTON_STYLES).nullable(),
    company_name: oneLine(1, 200).nullable(),
    address: oneLine(1, 500).nullable(),
    footer_text: oneLine(1, 500).nullable(),
  })
  .strict();

export const updateTeamSchema = z
  .object({
    name: oneLine(1, 80).optional(),
    sender_name: oneLine(1, 200).nullable().optional(),
    postal_address: postalAddressSchema.optional(),
    ai_assist_enabled: z.boolean().optional(),
    brand_kit: brandKitSchema.nullable().optional(),
  })
  .strict();

export type UpdateTeamInput = z.infer<typeof updateTeamSchema>;
