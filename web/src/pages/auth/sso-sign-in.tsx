import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api } from '../../api/client';
import { Button } from '../../ui/button';
import { ErrorMessage } from '../../ui/error-message';
import { ssoErrorText } from '../team/sso-types';

export type SsoDiscovery =
  | { object: 'sso_discovery'; sso: false }
  | { object: 'sso_discovery'; sso: true; enforced: boolean; authorization_url: string };

/** An address worth asking about: something@domain.tld (not every keystroke of one). */
const COMPLETE = /^[^@\s]+@[^@\s]+\.[^@\s.]{2,}$/;

/** `value`, once it has not changed for `ms`. */
function useSettled(value: string, ms: number): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = window.setTimeout(() => setSettled(value), ms);
    return () => window.clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/**
 * Whether the address typed is on a domain with single sign-on (POST /auth/sso/discover), asked
 * once the address looks complete and typing paused. A failed look-up is no SSO: the password
 * form stays, and the API still refuses a password where SSO is enforced.
 */
export function useSsoDiscovery(email: string) {
  const settled = useSettled(email.trim().toLowerCase(), 400);
  const asked = COMPLETE.test(settled) ? settled : '';
  const query = useQuery({
    queryKey: ['auth', 'sso-discovery', asked],
    enabled: asked !== '',
    staleTime: 60_000,
    retry: false,
    queryFn: () => api.post<SsoDiscovery>('/auth/sso/discover', { email: asked }),
  });
  const current = asked !== '' && asked === email.trim().toLowerCase() ? query.data : undefined;
  return current?.sso ? current : null;
}

/**
 * "Continue with single sign-on": a fresh discovery (its authorization URL carries a one-time
 * state), then the provider's page; the callback brings the person back signed in.
 */
export function ContinueWithSso({ email, primary }: { email: string; primary: boolean }) {
  const go = useMutation({
    mutationFn: () => api.post<SsoDiscovery>('/auth/sso/discover', { email: email.trim() }),
    onSuccess: (answer) => {
      if (answer.sso) window.location.assign(answer.authorization_url);
    },
  });
  const gone = go.data && !go.data.sso;
  return (
    <div className="sso-continue">
      <Button
        variant={primary ? 'primary' : 'secondary'}
        busy={go.isPending || Boolean(go.data?.sso)}
        onClick={() => go.mutate()}
      >
        Continue with single sign-on
      </Button>
      <ErrorMessage error={go.error} />
      {gone ? (
        <div className="alert alert-warn" role="status">
          Single sign-on is no longer offered for this address. Sign in with your password.
        </div>
      ) : null}
    </div>
  );
}

/** ?sso_error=<code> from a failed callback, in words. */
export function SsoCallbackError({ code }: { code: string }) {
  if (!code) return null;
  return (
    <div className="alert alert-error" role="alert">
      <strong>Single sign-on did not work. </strong>
      {ssoErrorText(code)}
    </div>
  );
}
