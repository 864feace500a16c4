import { emailBodySchema, resetPasswordSchema, tokenBodySchema } from '../../../core/accounts/account.schemas.js';
import { defineRoute } from '../../route.js';
import {
  passwordResetRequestedShape,
  passwordResetResultShape,
  verificationResentShape,
  verifyEmailResultShape,
} from './auth-shapes.js';

const tag = 'auth';

/** E-mail verification and password reset: the routes behind the links the appliance mails. */
export const recoveryRoutes = [
  defineRoute({
    method: 'POST',
    path: '/auth/verify-email',
    operationId: 'verifyEmail',
    summary: 'Confirm the e-mail address with the token from the verification link',
    tag,
    permission: 'none',
    scope: null,
    originCheck: true,
    body: tokenBodySchema,
    exampleBody: { token: 'token-from-the-link' },
    responses: { 200: { description: 'Verified', schema: verifyEmailResultShape } },
    handler: async ({ body, services }) => {
      const user = await services.accountRecovery.verifyEmail(body.token);
      return {
        status: 200,
        body: { object: 'user', id: user.id, email_verified_at: user.emailVerifiedAt?.toISOString() ?? null },
      };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/auth/verify-email/resend',
    operationId: 'resendVerificationEmail',
    summary: 'Send the verification link again (sent: false when the address is verified already)',
    tag,
    permission: 'session',
    scope: null,
    responses: { 202: { description: 'Queued', schema: verificationResentShape } },
    handler: async ({ session, services, clientIp }) => {
      const sent = await services.accountRecovery.resendVerification(session.user, clientIp);
      return { status: 202, body: { object: 'email_verification', sent } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/auth/password-reset/request',
    operationId: 'requestPasswordReset',
    summary: 'Mail a password-reset link; the same answer whether or not the address has an account',
    tag,
    permission: 'none',
    scope: null,
    originCheck: true,
    body: emailBodySchema,
    exampleBody: { email: 'ann@example.com' },
    responses: { 200: { description: 'Requested', schema: passwordResetRequestedShape } },
    handler: async ({ body, services, clientIp }) => {
      await services.accountRecovery.requestPasswordReset(body.email, clientIp);
      return { status: 200, body: { object: 'password_reset', requested: true } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/auth/password-reset',
    operationId: 'resetPassword',
    summary: 'Set a new password with the reset token; ends every session of the user',
    tag,
    permission: 'none',
    scope: null,
    originCheck: true,
    body: resetPasswordSchema,
    exampleBody: { token: 'token-from-the-link', password: 'a new password' },
    responses: { 200: { description: 'Password set', schema: passwordResetResultShape } },
    handler: async ({ body, services }) => {
      const user = await services.accountRecovery.resetPassword(body.token, body.password);
      return { status: 200, body: { object: 'user', id: user.id } };
    },
  }),
];
