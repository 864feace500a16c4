import { z } from 'zod';

/** Request shapes of the spec ("Dashboard session shapes"), with its limits. */
const email = z.string().trim().min(3).max(320).email('must be an e-mail address');
const token = z.string().min(1).max(512);

export const signupSchema = z
  .object({ email, password: z.string().min(6).max(4096), name: z.string().trim().max(200).optional() })
  .strict();
export const loginSchema = z.object({ email, password: z.string().min(1).max(4096) }).strict();
export const logoutSchema = z.object({ all: z.boolean().optional() }).strict();
export const tokenBodySchema = z.object({ token }).strict();
export const emailBodySchema = z.object({ email }).strict();
export const resetPasswordSchema = z.object({ token, password: z.string().min(6).max(4096) }).strict();

export type SignupInput = z.infer<typeof signupSchema>;
export type LoginInput = z.infer<typeof loginSchema>;
