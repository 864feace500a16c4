import { z } from 'zod';

/** Response schemas of the dashboard session routes (spec: "Dashboard session shapes"). */
export const userShape = z.object({
  object: z.literal('user'),
  id: z.string(),
  email: z.string(),
  name: z.string().nullable(),
  email_verified_at: z.string().nullable(),
  created_at: z.string(),
});

export const sessionShape = z.object({
  object: z.literal('session'),
  /** `operator`: the person runs the appliance (the admin API, /admin/...). */
  user: userShape.extend({ operator: z.boolean() }),
  current_team: z
    .object({
      object: z.literal('team'),
      id: z.string(),
      name: z.string(),
      slug: z.string(),
      risk_state: z.string(),
      created_at: z.string(),
    })
    .nullable(),
  /** An operator whose MFA is not on yet: the admin API answers 403 mfa_required until it is. */
  operator_mfa_required: z.boolean(),
});

export const logoutResultShape = z.object({ object: z.literal('session'), revoked: z.literal(true) });
export const verifyEmailResultShape = z.object({
  object: z.literal('user'),
  id: z.string(),
  email_verified_at: z.string().nullable(),
});
export const passwordResetRequestedShape = z.object({
  object: z.literal('password_reset'),
  requested: z.literal(true),
});
export const passwordResetResultShape = z.object({ object: z.literal('user'), id: z.string() });
/** Our shape for the resend route (the spec shows none): `sent` is false when already verified. */
export const verificationResentShape = z.object({
  object: z.literal('email_verification'),
  sent: z.boolean(),
});

export const mfaChallengeShape = z.object({
  object: z.literal('mfa_challenge'),
  challenge_token: z.string(),
  expires_at: z.string(),
});
export const mfaStatusShape = z.object({
  object: z.literal('mfa'),
  enabled: z.boolean(),
  enabled_at: z.string().nullable(),
  enrolling: z.boolean(),
  recovery_codes_remaining: z.number().int(),
  has_password: z.boolean(),
});
/** Our enrolment answer (the spec shows none): the secret and the URI an authenticator app reads. */
export const mfaEnrolmentShape = z.object({
  object: z.literal('mfa_enrolment'),
  secret: z.string(),
  otpauth_uri: z.string(),
});
/** MfaStatus once confirmed, plus the recovery codes: shown this once only. */
export const mfaConfirmedShape = mfaStatusShape.extend({ recovery_codes: z.array(z.string()) });

const invitationRole = z.enum(['admin', 'member']);
const invitationStatus = z.enum(['pending', 'accepted', 'revoked', 'expired']);
/** Our Invitation shape (the spec shows none); the token is never in it. */
export const invitationShape = z.object({
  object: z.literal('invitation'),
  id: z.string(),
  team_id: z.string(),
  email: z.string(),
  role: invitationRole,
  status: invitationStatus,
  invited_by: z.string(),
  created_at: z.string(),
  expires_at: z.string(),
});
export const invitationRevokedShape = z.object({
  object: z.literal('invitation'),
  id: z.string(),
  revoked: z.literal(true),
});
export const invitationPreviewShape = z.object({
  object: z.literal('invitation'),
  team: z.object({ id: z.string(), name: z.string() }),
  email: z.string(),
  role: invitationRole,
  status: invitationStatus,
  expires_at: z.string(),
});
