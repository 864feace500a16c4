import { z } from 'zod';
import { SSO_ERRORS } from '../../../core/sso/sso.types.js';

const timestamp = z.string().nullable();

export const ssoConfigurationShape = z
  .object({
    object: z.literal('sso_configuration'),
    status: z.enum(['configured', 'tested', 'active', 'failing']),
    issuer: z.string(),
    client_id: z.string(),
    domains: z.array(z.string()),
    active: z.boolean().describe('in use: covered addresses are sent to the provider (also while failing)'),
    enforced: z.boolean(),
    redirect_uri: z.string().describe('register this at the provider'),
    tested_at: timestamp,
    activated_at: timestamp,
    last_error: z.string().nullable(),
    last_sign_in_at: timestamp,
    created_at: z.string(),
    updated_at: z.string(),
  })
  .strict();

/** PUT and PATCH answers: the configuration, and the password sessions its enforcement ended. */
export const ssoChangeShape = ssoConfigurationShape
  .extend({
    password_sessions_ended: z
      .number()
      .int()
      .nonnegative()
      .describe('sessions of covered addresses not opened through the provider, ended by enforcement'),
  })
  .strict();

export const ssoSignInShape = z
  .object({
    object: z.literal('sso_sign_in'),
    id: z.string(),
    user_id: z.string().nullable(),
    email: z.string().nullable(),
    name: z.string().nullable(),
    outcome: z.enum(['signed_in', 'joined', 'tested', 'failed']),
    error: z.enum(SSO_ERRORS).nullable(),
    created_at: z.string(),
  })
  .strict();

export const ssoDiscoveryShape = z.union([
  z.object({ object: z.literal('sso_discovery'), sso: z.literal(false) }).strict(),
  z
    .object({
      object: z.literal('sso_discovery'),
      sso: z.literal(true),
      enforced: z.boolean(),
      authorization_url: z.string(),
    })
    .strict(),
]);
