import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { useResetSession } from '../../api/session';
import { Link } from '../../router';
import { useRouter } from '../../router';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { TextField } from '../../ui/field';
import { AuthCard, AuthForm } from './auth-card';

/**
 * Choose a password with a reset link, or the set-password link `mailroom user create` prints
 * (the same kind of token). Setting it ends every session, so the person signs in afterwards.
 */
export default function ResetPasswordPage() {
  const { search } = useRouter();
  const token = search.get('token') ?? '';
  const reset = useResetSession();
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const change = useMutation({
    mutationFn: () => api.post('/auth/password-reset', { token, password }),
    onSuccess: () => reset(),
  });
  const submit = () => {
    setMismatch(password !== confirm);
    if (password === confirm) change.mutate();
  };
  if (change.isSuccess) {
    return (
      <AuthCard title="Password set">
        <div className="alert alert-good" role="status">
          Your password is set. Every other session was signed out.
        </div>
        <p>
          <Link to="/login">Sign in with your new password</Link>
        </p>
      </AuthCard>
    );
  }
  return (
    <AuthCard
      title="Choose a password"
      footer={
        <p>
          <Link to="/forgot-password">Ask for a new link</Link>
        </p>
      }
    >
      {!token ? (
        <div className="alert alert-error" role="alert">
          This link has no token. Open the link from the e-mail (or the one the operator gave you) again.
        </div>
      ) : null}
      <AuthForm label="Choose a password" onSubmit={submit}>
        <TextField
          label="New password"
          type="password"
          name="password"
          autoComplete="new-password"
          required
          minLength={6}
          hint="At least 6 characters."
          value={password}
          onChange={(event) => setPassword(event.target.value)}
          error={fieldError(change.error, 'password')}
        />
        <TextField
          label="Repeat the password"
          type="password"
          name="confirm"
          autoComplete="new-password"
          required
          value={confirm}
          onChange={(event) => setConfirm(event.target.value)}
          error={mismatch ? 'The two passwords are not the same.' : null}
        />
        <ErrorMessage error={change.error} />
        <div className="form-actions">
          <Button type="submit" variant="primary" busy={change.isPending} disabled={!token}>
            Set password
          </Button>
        </div>
      </AuthForm>
    </AuthCard>
  );
}
