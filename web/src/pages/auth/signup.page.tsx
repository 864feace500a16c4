import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { sessionKey, useResetSession, type Session } from '../../api/session';
import { Link, useRouter } from '../../router';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { TextField } from '../../ui/field';
import { AuthCard, AuthForm } from './auth-card';

/** Create an account where `accounts.signup` allows it; the API's refusal says when it does not. */
export default function SignupPage() {
  const { navigate } = useRouter();
  const reset = useResetSession();
  const client = useQueryClient();
  const [form, setForm] = useState({ name: '', email: '', password: '' });
  const signup = useMutation({
    mutationFn: () =>
      api.post<Session>('/auth/signup', {
        email: form.email,
        password: form.password,
        ...(form.name ? { name: form.name } : {}),
      }),
    onSuccess: async (session) => {
      await reset();
      client.setQueryData(sessionKey, session);
      navigate('/account?welcome=1', { replace: true });
    },
  });
  const set = (name: keyof typeof form) => (event: { target: { value: string } }) =>
    setForm({ ...form, [name]: event.target.value });
  return (
    <AuthCard
      title="Create an account"
      footer={
        <p>
          Already have one? <Link to="/login">Sign in</Link>
        </p>
      }
    >
      <AuthForm label="Create an account" onSubmit={() => signup.mutate()}>
        <TextField
          label="Name"
          name="name"
          autoComplete="name"
          value={form.name}
          onChange={set('name')}
          maxLength={200}
          error={fieldError(signup.error, 'name')}
        />
        <TextField
          label="E-mail"
          type="email"
          name="email"
          autoComplete="email"
          required
          value={form.email}
          onChange={set('email')}
          error={fieldError(signup.error, 'email')}
        />
        <TextField
          label="Password"
          type="password"
          name="password"
          autoComplete="new-password"
          required
          minLength={6}
          hint="At least 6 characters; a long passphrase is best."
          value={form.password}
          onChange={set('password')}
          error={fieldError(signup.error, 'password')}
        />
        <ErrorMessage error={signup.error} />
        <div className="form-actions">
          <Button type="submit" variant="primary" busy={signup.isPending}>
            Create account
          </Button>
        </div>
      </AuthForm>
    </AuthCard>
  );
}
