import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { sessionKey, useResetSession, useSession, type Session } from '../../api/session';
import { Link, useRouter } from '../../router';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { TextField } from '../../ui/field';
import { Loading } from '../../ui/page';
import { AuthCard, AuthForm } from './auth-card';

type Preview = { team: { id: string; name: string }; email: string; role: string; status: string; expires_at: string };

/**
 * The invitation link from the mail: shows the team and role, then joins with the signed-in
 * address, or creates the account (name and password) when nobody is signed in.
 */
export default function AcceptInvitationPage() {
  const { search, navigate } = useRouter();
  const token = search.get('token') ?? '';
  const session = useSession();
  const reset = useResetSession();
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const preview = useQuery({
    queryKey: ['invitation-preview', token],
    queryFn: () => api.get<Preview>('/auth/invitations/preview', { query: { token } }),
    enabled: Boolean(token),
    retry: false,
  });
  const accept = useMutation({
    mutationFn: () =>
      api.post<Session>(
        '/auth/invitations/accept',
        session.data ? { token } : { token, password, ...(name ? { name } : {}) },
      ),
    onSuccess: async (joined) => {
      await reset();
      client.setQueryData(sessionKey, joined);
      navigate('/emails', { replace: true });
    },
  });
  if (!token)
    return (
      <AuthCard title="Invitation">
        <p>This link has no token. Open the link from the invitation e-mail again.</p>
      </AuthCard>
    );
  if (preview.isLoading) return <Loading label="Reading the invitation…" />;
  if (preview.error || !preview.data) {
    return (
      <AuthCard title="Invitation">
        <ErrorMessage error={preview.error} />
        <p>Ask the person who invited you to send a new invitation.</p>
      </AuthCard>
    );
  }
  const invitation = preview.data;
  const signedInAs = session.data?.user.email;
  return (
    <AuthCard title={`Join ${invitation.team.name}`}>
      <p>
        You are invited to the team <strong>{invitation.team.name}</strong> as <strong>{invitation.role}</strong>, with
        the address <strong>{invitation.email}</strong>.
      </p>
      {signedInAs && signedInAs.toLowerCase() !== invitation.email.toLowerCase() ? (
        <div className="alert alert-warn" role="status">
          You are signed in as {signedInAs}. This invitation is for {invitation.email}: sign out and open the link
          again, or ask for an invitation to {signedInAs}.
        </div>
      ) : null}
      <AuthForm label="Accept the invitation" onSubmit={() => accept.mutate()}>
        {signedInAs ? null : (
          <>
            <p className="muted">
              New to Mailroom? Choose your name and a password. Already have an account with this address?{' '}
              <Link to={`/login?next=${encodeURIComponent(`/invitations/accept?token=${token}`)}`}>Sign in first</Link>.
            </p>
            <TextField
              label="Your name"
              name="name"
              autoComplete="name"
              value={name}
              onChange={(event) => setName(event.target.value)}
              error={fieldError(accept.error, 'name')}
            />
            <TextField
              label="Password"
              type="password"
              name="password"
              autoComplete="new-password"
              minLength={6}
              required
              value={password}
              onChange={(event) => setPassword(event.target.value)}
              error={fieldError(accept.error, 'password')}
            />
          </>
        )}
        <ErrorMessage error={accept.error} />
        <div className="form-actions">
          <Button type="submit" variant="primary" busy={accept.isPending}>
            Accept and join
          </Button>
        </div>
      </AuthForm>
    </AuthCard>
  );
}
