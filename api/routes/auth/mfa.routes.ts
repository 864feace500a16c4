import { z } from 'zod';
import { defineRoute } from '../../route.js';
import { serializeMfaStatus } from '../../serializers/mfa.serializer.js';
import { mfaConfirmedShape, mfaEnrolmentShape, mfaStatusShape, sessionShape } from './auth-shapes.js';
import { rotated, signedIn, signInEntry } from './session.routes.js';

const tag = 'auth';
const code = z.string().regex(/^\d{6}$/, 'must be the 6-digit code of the authenticator app');

/** TOTP second factor: status, enrolment, confirmation, disabling, and the login challenge. */
export const mfaRoutes = [
  defineRoute({
    method: 'GET',
    path: '/auth/mfa',
    operationId: 'getMfa',
    summary: 'Whether the user has MFA on, is enrolling, and recovery codes left',
    tag,
    permission: 'session',
    scope: null,
    responses: { 200: { description: 'MFA status', schema: mfaStatusShape } },
    handler: async ({ session, services }) => ({
      status: 200,
      body: serializeMfaStatus(await services.accountMfa.status(session.user)),
    }),
  }),
  defineRoute({
    method: 'POST',
    path: '/auth/mfa/enrol',
    operationId: 'enrolMfa',
    summary: 'Start TOTP enrolment: a new secret and its otpauth URI (confirm with a code)',
    tag,
    permission: 'session',
    scope: null,
    responses: { 200: { description: 'Enrolment started', schema: mfaEnrolmentShape } },
    handler: async ({ session, services }) => {
      const { secret, uri } = await services.accountMfa.enrol(session.user);
      return { status: 200, body: { object: 'mfa_enrolment', secret, otpauth_uri: uri } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/auth/mfa/confirm',
    operationId: 'confirmMfa',
    summary: 'Turn MFA on with a first code; answers the ten recovery codes, shown this once',
    tag,
    permission: 'session',
    scope: null,
    body: z.object({ code }).strict(),
    exampleBody: { code: '123456' },
    responses: { 200: { description: 'MFA on', schema: mfaConfirmedShape } },
    handler: async ({ body, session, services, clientIp }) => {
      const codes = await services.accountMfa.confirm(session.user, body.code, clientIp);
      const status = serializeMfaStatus(await services.accountMfa.status(session.user));
      return { status: 200, body: { ...status, recovery_codes: codes }, headers: await rotated(session, services) };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/auth/mfa/disable',
    operationId: 'disableMfa',
    summary: 'Turn MFA off (needs the password)',
    tag,
    permission: 'session',
    scope: null,
    body: z.object({ password: z.string().min(1).max(4096) }).strict(),
    exampleBody: { password: 'correct horse' },
    responses: { 200: { description: 'MFA off', schema: mfaStatusShape } },
    handler: async ({ body, session, services, clientIp }) => {
      await services.accountMfa.disable(session.user, body.password, clientIp);
      const status = serializeMfaStatus(await services.accountMfa.status(session.user));
      return { status: 200, body: status, headers: await rotated(session, services) };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/auth/mfa/verify',
    operationId: 'verifyMfa',
    summary: 'Answer the login challenge with a code or a recovery code; signs in',
    tag,
    permission: 'none',
    scope: null,
    originCheck: true,
    body: z
      .object({
        challenge_token: z.string().min(1).max(512),
        code: code.optional(),
        recovery_code: z.string().min(1).max(64).optional(),
      })
      .strict()
      .refine((b) => (b.code === undefined) !== (b.recovery_code === undefined), {
        message: 'send exactly one of code and recovery_code',
        path: ['code'],
      }),
    exampleBody: { challenge_token: 'token-from-login', code: '123456' },
    responses: { 200: { description: 'Signed in; Set-Cookie mailroom_session', schema: sessionShape } },
    audit: ({ body }, result) => signInEntry(result, body.recovery_code === undefined ? 'mfa_code' : 'recovery_code'),
    handler: async ({ body, services, clientIp }) => {
      const issued = await services.accountMfa.verifyChallenge(
        { challengeToken: body.challenge_token, code: body.code, recoveryCode: body.recovery_code },
        clientIp,
      );
      return signedIn(200, issued, services);
    },
  }),
];
