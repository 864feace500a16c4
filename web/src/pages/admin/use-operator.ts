import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { api } from '../../api/client';
import { useSession } from '../../api/session';
import { useRouter } from '../../router';

/** Where an operator lands: the console's first page. */
export const OPERATOR_HOME = '/admin/queue';

type MfaStatus = { enabled: boolean };

/**
 * The signed-in person as an operator: whether they are one, and whether their two-factor
 * authentication is still missing (the admin API answers 403 mfa_required until it is on, so the
 * console sends them to enrol first). The session says so; the MFA status, which shares its cache
 * with the account page's MFA card, tells the moment enrolment is confirmed there.
 */
export function useOperator(): { operator: boolean; mfaMissing: boolean } {
  const session = useSession();
  const operator = Boolean(session.data?.user.operator);
  const required = operator && Boolean(session.data?.operator_mfa_required);
  const mfa = useQuery({
    queryKey: ['auth', 'mfa'],
    queryFn: () => api.get<MfaStatus>('/auth/mfa'),
    enabled: required,
  });
  return { operator, mfaMissing: required && mfa.data?.enabled !== true };
}

/** Whether an operator is on a page they are about to be sent away from (see useOperatorRedirect). */
function leavingFor(state: { operator: boolean; mfaMissing: boolean }, nav: string | null): string | null {
  if (!state.operator || nav === null || nav === 'account') return null;
  if (state.mfaMissing) return '/account?operator_mfa=required';
  return nav.startsWith('admin-') ? null : OPERATOR_HOME;
}

/**
 * Keeps an operator inside the console: an operator has no team, so the team pages would only
 * fail; one without MFA is sent to the account page to turn it on (the shell says why).
 * `leaving`: the page is not shown while the redirect happens (it would only flash a refusal).
 */
export function useOperatorRedirect(nav: string | null): { operator: boolean; mfaMissing: boolean; leaving: boolean } {
  const state = useOperator();
  const { navigate } = useRouter();
  const target = leavingFor(state, nav);
  useEffect(() => {
    if (target) navigate(target, { replace: true });
  }, [target, navigate]);
  return { ...state, leaving: target !== null };
}
