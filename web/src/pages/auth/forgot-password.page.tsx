import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { Link } from '../../router';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { TextField } from '../../ui/field';
import { AuthCard, AuthForm } from './auth-card';

/** Ask for a reset link. The answer is the same whether or not the address has an account. */
export default function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const request = useMutation({ mutationFn: () => api.post('/auth/password-reset/request', { email }) });
  return (
    <AuthCard
      title="Reset your password"
      footer={
        <p>
          <Link to="/login">Back to sign in</Link>
        </p>
      }
    >
      {request.isSuccess ? (
        <div className="alert alert-good" role="status">
          If an account uses {email}, a link to choose a new password is on its way. It is valid for one hour.
        </div>
      ) : (
        <AuthForm label="Reset your password" onSubmit={() => request.mutate()}>
          <TextField
            label="E-mail"
            type="email"
            name="email"
            autoComplete="email"
            required
            value={email}
            onChange={(event) => setEmail(event.target.value)}
            error={fieldError(request.error, 'email')}
          />
          <ErrorMessage error={request.error} />
          <div className="form-actions">
            <Button type="submit" variant="primary" busy={request.isPending}>
              Send the link
            </Button>
          </div>
        </AuthForm>
      )}
    </AuthCard>
  );
}
