import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, ApiError } from '../../api/client';
import { sessionKey, useSession, useResetSession, type Session } from '../../api/session';
import { Link, useRouter } from '../../router';
import { Button } from '../../ui/button';
import { describeError, ErrorMessage, fieldError } from '../../ui/error-message';
import { TextField } from '../../ui/field';
import { AuthCard, AuthForm, nextPath } from './auth-card';
import { sentence } from '../team/sso-types';
import { ContinueWithSso, SsoCallbackError, useSsoDiscovery } from './sso-sign-in';

type Challenge = { object: 'mfa_challenge'; challenge_token: string; expires_at: string };

/**
 * Sign in with e-mail and password, then (MFA on) a code from the app or a recovery code. An
 * address on a domain with single sign-on is offered "Continue with single sign-on"; where it is
 * enforced the password field goes away (owners keep it, behind a small link: their recovery path).
 */
export default function LoginPage() {
  const { search, navigate } = useRouter();
  const session = useSession();
  const reset = useResetSession();
  const client = useQueryClient();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [challenge, setChallenge] = useState<Challenge | null>(null);
  const [code, setCode] = useState('');
  const [useRecovery, setUseRecovery] = useState(false);
  const [ownerPassword, setOwnerPassword] = useState(false);
  const sso = useSsoDiscovery(email);

  useEffect(() => {
    if (session.data) navigate(nextPath(search), { replace: true });
  }, [session.data, search, navigate]);

  const finish = async (signedIn: Session) => {
    await reset();
    client.setQueryData(sessionKey, signedIn);
    navigate(nextPath(search), { replace: true });
  };

  const login = useMutation({
    mutationFn: () => api.post<Session | Challenge>('/auth/login', { email, password }),
    onSuccess: async (answer) => {
      if (answer.object === 'mfa_challenge') setChallenge(answer);
      else await finish(answer);
    },
  });
  const verify = useMutation({
    mutationFn: () =>
      api.post<Session>('/auth/mfa/verify', {
        challenge_token: challenge!.challenge_token,
        ...(useRecovery ? { recovery_code: code.trim() } : { code: code.replace(/\s+/g, '') }),
      }),
    onSuccess: finish,
  });

  // The API's refusal of a password where SSO is enforced (403 validation_error, details.next 'sso').
  const ssoRequired =
    login.error instanceof ApiError && login.error.status === 403 && login.error.details.next === 'sso';
  const enforced = Boolean(sso?.enforced) || ssoRequired;
  const passwordShown = !enforced || ownerPassword;

  if (challenge) {
    const expired =
      verify.error instanceof ApiError &&
      /expired|challenge/i.test(verify.error.message) &&
      verify.error.status !== 422;
    return (
      <AuthCard title="Two-factor authentication">
        <p>
          {useRecovery
            ? 'Enter one of the recovery codes you saved when you turned on two-factor authentication. Each works once.'
            : 'Enter the 6-digit code from your authenticator app.'}
        </p>
        <AuthForm label="Two-factor code" onSubmit={() => verify.mutate()}>
          <TextField
            label={useRecovery ? 'Recovery code' : 'Authentication code'}
            name="code"
            value={code}
            onChange={(event) => setCode(event.target.value)}
            autoComplete="one-time-code"
            inputMode={useRecovery ? 'text' : 'numeric'}
            autoFocus
            required
            error={fieldError(verify.error, 'code') ?? fieldError(verify.error, 'recovery_code')}
          />
          <ErrorMessage error={verify.error} />
          <div className="form-actions">
            <Button type="submit" variant="primary" busy={verify.isPending}>
              Verify
            </Button>
            <Button
              variant="ghost"
              onClick={() => {
                setUseRecovery((value) => !value);
                setCode('');
                verify.reset();
              }}
            >
              {useRecovery ? 'Use the authenticator app' : 'Use a recovery code'}
            </Button>
          </div>
          {expired ? (
            <Button
              variant="ghost"
              onClick={() => {
                setChallenge(null);
                verify.reset();
              }}
            >
              Start again
            </Button>
          ) : null}
        </AuthForm>
      </AuthCard>
    );
  }

  return (
    <AuthCard
      title="Sign in"
      footer={
        <p>
          No account? <Link to="/signup">Create one</Link> (where this appliance allows it) or ask a team owner for an
          invitation.
        </p>
      }
    >
      <SsoCallbackError code={search.get('sso_error') ?? ''} />
      <AuthForm label="Sign in" onSubmit={() => (passwordShown ? login.mutate() : undefined)}>
        <TextField
          label="E-mail"
          type="email"
          name="email"
          autoComplete="username"
          value={email}
          onChange={(event) => {
            setEmail(event.target.value);
            setOwnerPassword(false);
            login.reset();
          }}
          required
          autoFocus
          error={fieldError(login.error, 'email')}
        />
        {sso || ssoRequired ? (
          <>
            {sso?.enforced || ssoRequired ? (
              <p className="muted" role="status">
                Your organisation requires single sign-on for this address.
              </p>
            ) : null}
            <ContinueWithSso email={email} primary={!passwordShown || Boolean(sso?.enforced)} />
          </>
        ) : null}
        {passwordShown ? (
          <>
            {sso && !enforced ? <p className="sso-or muted">or sign in with your password</p> : null}
            <TextField
              label="Password"
              type="password"
              name="password"
              autoComplete="current-password"
              value={password}
              onChange={(event) => setPassword(event.target.value)}
              required
              error={fieldError(login.error, 'password')}
            />
            {ssoRequired ? null : <ErrorMessage error={login.error} />}
            <div className="form-actions">
              <Button type="submit" variant={sso ? 'secondary' : 'primary'} busy={login.isPending}>
                Sign in
              </Button>
              <Link to="/forgot-password">Forgot your password?</Link>
            </div>
          </>
        ) : (
          <button type="button" className="link-button sso-owner-link" onClick={() => setOwnerPassword(true)}>
            Sign in with password (owners only)
          </button>
        )}
        {ssoRequired ? (
          <div className="alert alert-error" role="alert">
            {sentence(describeError(login.error))} Use “Continue with single sign-on”. Only the team’s owners may still
            sign in with a password.
          </div>
        ) : null}
      </AuthForm>
    </AuthCard>
  );
}
