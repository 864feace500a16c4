import type { Context } from 'koa';
import type { SessionCaller } from '../core/accounts/account.types.js';
import type { Services } from '../app/services.js';
import { AppError, InvalidPermissionError } from '../lib/errors.js';
import { authenticateSession } from './session-auth.js';

/** 403 `mfa_required`: an operator whose second factor is not on yet (enrol at /auth/mfa/enrol). */
export class MfaRequiredError extends AppError {
  constructor(message: string) {
    super(403, 'mfa_required', message);
  }
}

/**
 * The credential of an 'operator' route (the admin API): only an operator's dashboard session
 * with MFA on. An Authorization header (API key, OAuth token) is refused as on session routes,
 * before the cookie is read; a team person's session is refused; an operator's session is
 * refused with `mfa_required` until the second factor is confirmed, so a stolen password alone
 * never reaches the whole appliance.
 */
export async function authenticateOperator(ctx: Context, services: Services): Promise<SessionCaller> {
  const session = await authenticateSession(ctx, services);
  const access = await services.operators.access(session.user.id);
  if (!access.operator) throw new InvalidPermissionError('This route is for operators of the appliance only');
  if (!access.mfaEnabled)
    throw new MfaRequiredError(
      'Operators need MFA: turn it on (POST /auth/mfa/enrol, then POST /auth/mfa/confirm) before using the admin API',
    );
  return session;
}
