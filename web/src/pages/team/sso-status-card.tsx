import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { StatusBadge } from '../../ui/badge';
import { Button } from '../../ui/button';
import { ConfirmDialog } from '../../ui/dialog';
import { ErrorMessage } from '../../ui/error-message';
import { Card, DescriptionList } from '../../ui/page';
import { Time } from '../../ui/time';
import { useToast } from '../../ui/toast';
import { ssoKey, STATUS_WORDS, useSsoWrite, type SsoConfiguration } from './sso-types';

/**
 * Where the configuration stands and the steps that follow saving it, in order: a test sign-in
 * through the provider, activating it, enforcing it (only once active), and removing it.
 */
export function SsoStatusCard({ configuration }: { configuration: SsoConfiguration }) {
  const words = STATUS_WORDS[configuration.status];
  return (
    <Card
      title="Status"
      id="sso-status"
      actions={
        <StatusBadge status={words.tone}>
          <span className="visually-hidden">Status: </span>
          {words.label}
        </StatusBadge>
      }
    >
      <p>{words.meaning}</p>
      {configuration.last_error ? (
        <div className="alert alert-error" role="alert">
          <strong>Last error: </strong>
          {configuration.last_error}
        </div>
      ) : null}
      <DescriptionList
        items={[
          ['Tested', <Time key="tested" value={configuration.tested_at} />],
          ['Activated', <Time key="activated" value={configuration.activated_at} />],
          ['Last sign-in', <Time key="last" value={configuration.last_sign_in_at} />],
          ['Covered domains', configuration.domains.length ? configuration.domains.join(', ') : 'None'],
        ]}
      />
      <TestSignIn configuration={configuration} />
      <Switches configuration={configuration} />
      <RemoveSso />
    </Card>
  );
}

/** POST /team/sso/test, then the provider's own login page; the callback comes back here with the result. */
function TestSignIn({ configuration }: { configuration: SsoConfiguration }) {
  const test = useMutation({
    mutationFn: () => api.post<{ object: 'sso_test'; authorization_url: string }>('/team/sso/test'),
    onSuccess: (answer) => window.location.assign(answer.authorization_url),
  });
  return (
    <div className="sso-step">
      <h3>1. Test sign-in</h3>
      <p className="muted">
        Opens your identity provider: sign in there with an account on a covered domain. You come back here with the
        result. Nobody else is affected by a test.
      </p>
      <ErrorMessage error={test.error} title="The test could not start." />
      <Button
        variant={configuration.status === 'configured' || configuration.status === 'failing' ? 'primary' : 'secondary'}
        busy={test.isPending || test.isSuccess}
        onClick={() => test.mutate()}
      >
        Test sign-in
      </Button>
    </div>
  );
}

/** What enforcement did to sessions opened with a password, as the end of a toast. */
const signedOut = (ended: number) =>
  ended === 0 ? '' : `; ${ended} password ${ended === 1 ? 'session was' : 'sessions were'} signed out`;

/** PATCH /team/sso { active } and { enforced }: switches, each saved at once. */
function Switches({ configuration }: { configuration: SsoConfiguration }) {
  const toast = useToast();
  const patch = useSsoWrite((changes: { active?: boolean; enforced?: boolean }) =>
    api.patch<SsoConfiguration>('/team/sso', changes),
  );
  const active = configuration.active;
  const testedOnce = configuration.tested_at !== null;
  const change = (changes: { active?: boolean; enforced?: boolean }, done: string) =>
    patch.mutate(changes, { onSuccess: (saved) => toast(done + signedOut(saved.password_sessions_ended ?? 0)) });
  const activateBlocked = !active && !testedOnce ? 'Test sign-in successfully first.' : null;
  const enforceBlocked = !active ? 'Activate single sign-on first (after a successful test).' : null;
  return (
    <div className="sso-step">
      <h3>2. Activate and enforce</h3>
      <div className="field field-check sso-switch">
        <input
          id="sso-active"
          type="checkbox"
          role="switch"
          checked={active}
          disabled={patch.isPending || Boolean(activateBlocked)}
          aria-describedby="sso-active-hint"
          onChange={(event) =>
            change(
              { active: event.target.checked },
              event.target.checked ? 'Single sign-on is active' : 'Single sign-on is off',
            )
          }
        />
        <label htmlFor="sso-active">Active</label>
        <span className="field-hint" id="sso-active-hint">
          {activateBlocked ??
            'The sign-in page offers “Continue with single sign-on” for addresses on the covered domains; a person signing in the first time joins the team as a member.'}
        </span>
      </div>
      <div className="field field-check sso-switch">
        <input
          id="sso-enforced"
          type="checkbox"
          role="switch"
          checked={configuration.enforced}
          disabled={patch.isPending || (Boolean(enforceBlocked) && !configuration.enforced)}
          aria-describedby="sso-enforced-hint"
          onChange={(event) =>
            change(
              { enforced: event.target.checked },
              event.target.checked ? 'Single sign-on is enforced' : 'Password sign-in is allowed again',
            )
          }
        />
        <label htmlFor="sso-enforced">Enforced</label>
        <span className="field-hint" id="sso-enforced-hint">
          {enforceBlocked ? `${enforceBlocked} ` : ''}
          When enforced, password sign-in is refused for addresses on the covered domains: those people sign in through
          the identity provider only, and their sessions opened with a password end at once (yours too, if you are not
          an owner and signed in with a password). The team’s owners keep their password (and two-factor authentication)
          as the way back in if the provider fails; each such sign-in is written to the audit log.
        </span>
      </div>
      <ErrorMessage error={patch.error} title="The change was not saved." />
    </div>
  );
}

/** DELETE /team/sso after a confirmation: password sign-in is the only way again for everyone. */
function RemoveSso() {
  const client = useQueryClient();
  const toast = useToast();
  const [open, setOpen] = useState(false);
  const remove = useMutation({
    mutationFn: () => api.delete('/team/sso'),
    onSuccess: async () => {
      setOpen(false);
      toast('Single sign-on removed');
      client.setQueryData(ssoKey, null);
      await client.invalidateQueries({ queryKey: ['team'], exact: true });
    },
  });
  return (
    <div className="sso-step">
      <h3>Remove</h3>
      <Button
        variant="danger"
        onClick={() => {
          remove.reset();
          setOpen(true);
        }}
      >
        Remove single sign-on
      </Button>
      <ConfirmDialog
        open={open}
        title="Remove single sign-on?"
        confirmLabel="Remove"
        busy={remove.isPending}
        error={remove.error}
        onClose={() => setOpen(false)}
        onConfirm={() => remove.mutate()}
      >
        <p>
          The provider’s settings and the stored secret are deleted. People of the covered domains sign in with a
          password again (those who joined through single sign-on set one with “Forgot your password?”).
        </p>
      </ConfirmDialog>
    </div>
  );
}
