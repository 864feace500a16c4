import { z } from 'zod';
import { emailBodySchema, signupSchema } from './account.schemas.js';

/** Request shapes of the invitation routes; address and password rules are signup's. */
const token = z.string().min(1).max(512);

export const createInvitationSchema = emailBodySchema
  .extend({ role: z.enum(['admin', 'member']).default('member') })
  .strict();
export const invitationTokenQuerySchema = z.object({ token }).strict();
/** `password` (and `name`) only when the invitation creates the account (see InvitationService.accept). */
export const acceptInvitationSchema = z
  .object({ token, password: signupSchema.shape.password.optional(), name: signupSchema.shape.name })
  .strict();

export type CreateInvitationInput = z.infer<typeof createInvitationSchema>;
export type AcceptInvitationInput = z.infer<typeof acceptInvitationSchema>;
