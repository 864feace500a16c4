import { z } from 'zod';
import { MissingRequiredFieldError, ValidationError } from '../../../lib/errors.js';
import { ISO_COUNTRY_CODES } from '../../../lib/iso-countries.js';
import { oneLine, parseInput } from '../../../lib/validation.js';
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

const POSTAL_REQUIRED = ['line1', 'city', 'postal_code', 'country'] as const;
const POSTAL_FIELDS: readonly string[] = ['line1', 'line2', 'city', 'state', 'postal_code', 'country'];
/** The fields, as every refusal of the object's shape names them. */
export const POSTAL_ADDRESS_FIELDS_TEXT =
  'line1 (max 200), city (max 100), postal_code (max 20), country (ISO 3166-1 alpha-2 such as US) required; line2 (max 200) and state (max 100) optional or null';

/**
 * postal_address as PATCH /team takes it. The shape (an object, its field names, the required
 * ones) is checked here so that each refusal names the accepted fields; statuses stay the spec's:
 * a value that is no object or an unknown field is 400 validation_error, a missing field 422
 * missing_required_field. Field values then go through postalAddressSchema.
 */
export function parsePostalAddress(value: unknown): z.infer<typeof postalAddressSchema> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const got = value === null ? 'null' : Array.isArray(value) ? 'a list' : `a ${typeof value}`;
    const message = `must be an object with the fields ${POSTAL_ADDRESS_FIELDS_TEXT} (got ${got})`;
    throw new ValidationError(`postal_address: ${message}`, { errors: [{ path: 'postal_address', message }] });
  }
  const present = value as Record<string, unknown>;
  const missing = POSTAL_REQUIRED.filter((field) => present[field] === undefined);
  if (missing.length > 0) {
    const paths = missing.map((field) => `postal_address.${field}`);
    throw new MissingRequiredFieldError(
      `Missing required field${missing.length > 1 ? 's' : ''}: ${paths.join(', ')} (postal_address: ${POSTAL_ADDRESS_FIELDS_TEXT})`,
      {
        errors: paths.map((path) => ({ path, message: `is required (postal_address: ${POSTAL_ADDRESS_FIELDS_TEXT})` })),
      },
    );
  }
  const unknown = Object.keys(present).filter((field) => !POSTAL_FIELDS.includes(field));
  if (unknown.length > 0) {
    const message = `is not a postal_address field; the fields are ${POSTAL_ADDRESS_FIELDS_TEXT}`;
    throw new ValidationError(
      `postal_address.${unknown[0]}: ${message}${unknown.length > 1 ? ` (and ${unknown.length - 1} more)` : ''}`,
      {
        errors: unknown.map((field) => ({ path: `postal_address.${field}`, message })),
      },
    );
  }
  return parseInput(z.object({ postal_address: postalAddressSchema }), { postal_address: value }, 'body')
    .postal_address;
}

/**
 * postal_address in the PATCH /team body: read as any value so that parsePostalAddress answers
 * for its shape, documented (OpenAPI, MCP) as postalAddressSchema.
 */
export const postalAddressBody = z
  .unknown()
  .meta(
    (({ $schema: _ignored, ...rest }) => rest)(
      z.toJSONSchema(postalAddressSchema, { io: 'input', reused: 'inline' }) as Record<string, unknown>,
    ),
  );

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
