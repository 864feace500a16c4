import { useMutation } from '@tanstack/react-query';
import { useEffect } from 'react';
import { api } from '../../api/client';
import { useSession } from '../../api/session';
import { Link, useRouter } from '../../router';
import { ErrorMessage } from '../../ui/error-message';
import { Loading } from '../../ui/page';
import { AuthCard } from './auth-card';

/** The link in the verification mail: the token is posted once, on opening. */
export default function VerifyEmailPage() {
  const { search } = useRouter();
  const token = search.get('token') ?? '';
  const session = useSession();
  const verify = useMutation({ mutationFn: () => api.post('/auth/verify-email', { token }) });
  useEffect(() => {
    if (token && verify.isIdle) verify.mutate();
  }, [token, verify]);
  return (
    <AuthCard title="Confirm your e-mail address">
      {!token ? <p>This link has no token. Open the link from the e-mail again.</p> : null}
      {verify.isPending ? <Loading label="Confirming…" /> : null}
      {verify.isSuccess ? (
        <div className="alert alert-good" role="status">
          Your address is confirmed.
        </div>
      ) : null}
      <ErrorMessage error={verify.error} />
      <p>{session.data ? <Link to="/emails">Continue to the dashboard</Link> : <Link to="/login">Sign in</Link>}</p>
    </AuthCard>
  );
}
