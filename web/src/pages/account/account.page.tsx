import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { useResetSession, useSession } from '../../api/session';
import { useRouter } from '../../router';
import { Button } from '../../ui/button';
import { CopyButton } from '../../ui/copy-button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { TextField } from '../../ui/field';
import { Card, DescriptionList, Loading, PageHeader } from '../../ui/page';
import { Time } from '../../ui/time';
import { useToast } from '../../ui/toast';
import { QrCode } from './qr-code';

type MfaStatus = {
  enabled: boolean;
  enabled_at: string | null;
  enrolling: boolean;
  recovery_codes_remaining: number;
  has_password: boolean;
};
type Enrolment = { secret: string; otpauth_uri: string };

/** The signed-in person: their address, two-factor authentication, and signing out everywhere. */
export default function AccountPage() {
  const session = useSession();
  const user = session.data?.user;
  const { search } = useRouter();
  return (
    <>
      <PageHeader title="Your account" description="Your sign-in, for every team you belong to." />
      {search.get('welcome') ? (
        <div className="alert alert-good" role="status">
          Welcome to Mailroom. Confirm your address with the link we sent, and turn on two-factor authentication below.
        </div>
      ) : null}
      {user ? (
        <Card title="Profile" id="profile">
          <DescriptionList
            items={[
              ['Name', user.name ?? '—'],
              ['E-mail', user.email],
              [
                'Address confirmed',
                user.email_verified_at ? <Time value={user.email_verified_at} /> : <ResendVerification />,
              ],
            ]}
          />
        </Card>
      ) : null}
      <MfaCard />
      <SessionsCard />
    </>
  );
}

function ResendVerification() {
  const resend = useMutation({ mutationFn: () => api.post<{ sent: boolean }>('/auth/verify-email/resend', {}) });
  return (
    <span>
      Not yet.{' '}
      {resend.isSuccess ? (
        <span role="status">A new link is on its way.</span>
      ) : (
        <Button variant="ghost" className="btn-small" busy={resend.isPending} onClick={() => resend.mutate()}>
          Send the link again
        </Button>
      )}
      <ErrorMessage error={resend.error} />
    </span>
  );
}

function MfaCard() {
  const client = useQueryClient();
  const toast = useToast();
  const status = useQuery({ queryKey: ['auth', 'mfa'], queryFn: () => api.get<MfaStatus>('/auth/mfa') });
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null);
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  const enrol = useMutation({ mutationFn: () => api.post<Enrolment>('/auth/mfa/enrol', {}), onSuccess: setEnrolment });
  const confirm = useMutation({
    mutationFn: () =>
      api.post<MfaStatus & { recovery_codes: string[] }>('/auth/mfa/confirm', { code: code.replace(/\s+/g, '') }),
    onSuccess: async (answer) => {
      setRecoveryCodes(answer.recovery_codes);
      setEnrolment(null);
      setCode('');
      await client.invalidateQueries({ queryKey: ['auth', 'mfa'] });
    },
  });
  const disable = useMutation({
    mutationFn: () => api.post<MfaStatus>('/auth/mfa/disable', { password }),
    onSuccess: async () => {
      setPassword('');
      toast('Two-factor authentication is off');
      await client.invalidateQueries({ queryKey: ['auth', 'mfa'] });
    },
  });
  if (status.isLoading) return <Loading />;
  const mfa = status.data;
  return (
    <Card title="Two-factor authentication" id="mfa">
      <ErrorMessage error={status.error} />
      {recoveryCodes ? (
        <div className="alert alert-good" role="status">
          <p>
            <strong>Two-factor authentication is on.</strong> Save these recovery codes somewhere safe now: they are
            shown this once. Each signs you in once if you lose your authenticator.
          </p>
          <pre aria-label="Recovery codes" className="recovery-codes">
            {recoveryCodes.join('\n')}
          </pre>
          <div className="form-actions">
            <CopyButton value={recoveryCodes.join('\n')} label="Copy the codes" />
            <Button onClick={() => setRecoveryCodes(null)}>I have saved them</Button>
          </div>
        </div>
      ) : null}
      {mfa?.enabled && !recoveryCodes ? (
        <div className="stack">
          <p>
            On since <Time value={mfa.enabled_at} mode="absolute" />. {mfa.recovery_codes_remaining} recovery codes
            left.
          </p>
          <form
            onSubmit={(event) => {
              event.preventDefault();
              disable.mutate();
            }}
            aria-label="Turn off two-factor authentication"
          >
            <TextField
              label="Your password, to turn it off"
              type="password"
              autoComplete="current-password"
              value={password}
              onChange={(event) => setPassword(event.target.value)}
              required
              error={fieldError(disable.error, 'password')}
            />
            <ErrorMessage error={disable.error} />
            <Button type="submit" variant="danger" busy={disable.isPending}>
              Turn off
            </Button>
          </form>
        </div>
      ) : null}
      {mfa && !mfa.enabled && !enrolment ? (
        <div className="stack">
          <p>Sign in with a code from an authenticator app as well as your password.</p>
          <div>
            <Button variant="primary" busy={enrol.isPending} onClick={() => enrol.mutate()}>
              Set up two-factor authentication
            </Button>
          </div>
          <ErrorMessage error={enrol.error} />
        </div>
      ) : null}
      {enrolment ? (
        <div className="mfa-enrol">
          <QrCode value={enrolment.otpauth_uri} label="QR code for your authenticator app" />
          <div className="stack">
            <p>Scan the code with your authenticator app, or enter this key by hand:</p>
            <p>
              <code className="mfa-secret">{enrolment.secret}</code>{' '}
              <CopyButton value={enrolment.secret} label="Copy the key" />
            </p>
            <form
              onSubmit={(event) => {
                event.preventDefault();
                confirm.mutate();
              }}
              aria-label="Confirm two-factor authentication"
            >
              <TextField
                label="The 6-digit code the app shows"
                name="code"
                inputMode="numeric"
                autoComplete="one-time-code"
                value={code}
                onChange={(event) => setCode(event.target.value)}
                required
                error={fieldError(confirm.error, 'code')}
              />
              <ErrorMessage error={confirm.error} />
              <div className="form-actions">
                <Button type="submit" variant="primary" busy={confirm.isPending}>
                  Turn on
                </Button>
                <Button onClick={() => setEnrolment(null)}>Cancel</Button>
              </div>
            </form>
          </div>
        </div>
      ) : null}
    </Card>
  );
}

function SessionsCard() {
  const reset = useResetSession();
  const { navigate } = useRouter();
  const signOutAll = useMutation({
    mutationFn: () => api.post('/auth/logout', { all: true }),
    onSuccess: async () => {
      await reset();
      navigate('/login', { replace: true });
    },
  });
  return (
    <Card title="Sessions" id="sessions">
      <p>Signed in on another computer you no longer use? End every session, this one included.</p>
      <Button variant="danger" busy={signOutAll.isPending} onClick={() => signOutAll.mutate()}>
        Sign out everywhere
      </Button>
      <ErrorMessage error={signOutAll.error} />
    </Card>
  );
}
