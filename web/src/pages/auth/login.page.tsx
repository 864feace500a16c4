import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, ApiError } from '../../api/client';
import { sessionKey, useSession, useResetSession, type Session } from '../../api/session';
import { Link, useRouter } from '../../router';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { TextField } from '../../ui/field';
import { AuthCard, AuthForm, nextPath } from './auth-card';

type Challenge = { object: 'mfa_challenge'; challenge_token: string; expires_at: string };

/** Sign in with e-mail and password, then (MFA on) a code from the app or a recovery code. */
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
      <AuthForm label="Sign in" onSubmit={() => login.mutate()}>
        <TextField
          label="E-mail"
          type="email"
          name="email"
          autoComplete="username"
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          required
          autoFocus
          error={fieldError(login.error, 'email')}
        />
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
        <ErrorMessage error={login.error} />
        <div className="form-actions">
          <Button type="submit" variant="primary" busy={login.isPending}>
            Sign in
          </Button>
          <Link to="/forgot-password">Forgot your password?</Link>
        </div>
      </AuthForm>
    </AuthCard>
  );
}
