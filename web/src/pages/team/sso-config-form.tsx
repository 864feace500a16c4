import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { useTeamDomains } from '../api-keys/api-key-types';
import { Link } from '../../router';
import { Button } from '../../ui/button';
import { CopyButton } from '../../ui/copy-button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { TextField } from '../../ui/field';
import { Card, Loading } from '../../ui/page';
import { useToast } from '../../ui/toast';
import { isPlanRefusal, PlanRefusal, useSsoWrite, type SsoConfiguration, type SsoInput } from './sso-types';

/**
 * The provider's settings (PUT /team/sso): issuer, client id, the client secret (write-only: the
 * API never answers it, so a saved one shows as "stored" and can only be replaced), and which of
 * the team's verified domains it covers. Changing the issuer, client or secret needs a new test.
 */
export function SsoConfigForm({ configuration }: { configuration: SsoConfiguration | null }) {
  const toast = useToast();
  const domains = useTeamDomains();
  const [issuer, setIssuer] = useState(configuration?.issuer ?? '');
  const [clientId, setClientId] = useState(configuration?.client_id ?? '');
  const [secret, setSecret] = useState('');
  const [replacing, setReplacing] = useState(configuration === null);
  const [covered, setCovered] = useState<string[]>(configuration?.domains ?? []);
  const save = useSsoWrite(
    (input: SsoInput) => api.put<SsoConfiguration>('/team/sso', input),
    (saved) => {
      toast(configuration ? 'Single sign-on settings saved' : 'Single sign-on configured');
      setSecret('');
      setReplacing(false);
      setCovered(saved.domains);
    },
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({
      issuer: issuer.trim(),
      client_id: clientId.trim(),
      ...(replacing && secret ? { client_secret: secret } : {}),
      domains: covered,
    });
  };
  const verified = (domains.data ?? []).filter((domain) => domain.status === 'verified').map((domain) => domain.name);
  // A covered domain that is no longer on the verified list (still shown, so it can be unticked).
  const choices = [...new Set([...verified, ...covered])];
  const toggle = (name: string, on: boolean) =>
    setCovered((list) => (on ? [...list, name] : list.filter((item) => item !== name)));
  const resetsTest =
    configuration !== null &&
    configuration.status !== 'configured' &&
    (issuer.trim() !== configuration.issuer || clientId.trim() !== configuration.client_id || Boolean(secret));
  const domainsError = fieldError(save.error, 'domains');

  return (
    <Card title="Identity provider" id="sso-provider">
      <p className="muted">
        Register Mailroom as an OpenID Connect application (a “web” client using the authorization code flow) at your
        identity provider, then enter what it gives you.
      </p>
      {configuration ? (
        <div className="field">
          <span className="field-label" id="sso-redirect-label">
            Redirect URI to register at the provider
          </span>
          <div className="with-copy" aria-labelledby="sso-redirect-label" role="group">
            <code className="break-all">{configuration.redirect_uri}</code>
            <CopyButton value={configuration.redirect_uri} label="Copy the redirect URI" />
          </div>
        </div>
      ) : (
        <p className="muted">The redirect URI to register at the provider is shown once the settings are saved.</p>
      )}
      <form aria-label="Identity provider settings" onSubmit={submit} className="stack">
        <TextField
          label="Issuer URL"
          name="issuer"
          type="url"
          required
          placeholder="https://login.example.com"
          value={issuer}
          onChange={(event) => setIssuer(event.target.value)}
          hint="The provider’s issuer: its discovery document is read at /.well-known/openid-configuration below it."
          error={fieldError(save.error, 'issuer')}
        />
        <TextField
          label="Client ID"
          name="client_id"
          required
          autoComplete="off"
          value={clientId}
          onChange={(event) => setClientId(event.target.value)}
          error={fieldError(save.error, 'client_id')}
        />
        {replacing ? (
          <TextField
            label="Client secret"
            name="client_secret"
            type="password"
            autoComplete="new-password"
            required={configuration === null}
            value={secret}
            onChange={(event) => setSecret(event.target.value)}
            hint={
              configuration
                ? 'The new secret replaces the stored one when you save.'
                : 'Kept encrypted; it is never shown again.'
            }
            error={fieldError(save.error, 'client_secret')}
          />
        ) : (
          <div className="field">
            <span className="field-label" id="sso-secret-label">
              Client secret
            </span>
            <div className="secret-row" role="group" aria-labelledby="sso-secret-label">
              <span className="badge badge-good">Stored</span>
              <span className="muted">Never shown again.</span>
              <Button className="btn-small" onClick={() => setReplacing(true)}>
                Replace the secret
              </Button>
            </div>
          </div>
        )}
        <fieldset className={`address-fields sso-domains${domainsError ? ' field-invalid' : ''}`}>
          <legend>Covered domains</legend>
          <p className="field-hint" id="sso-domains-hint">
            People whose address is on a ticked domain can sign in with single sign-on (and join the team as members the
            first time). Only the team’s verified domains can be covered.
          </p>
          {domains.isLoading ? <Loading label="Loading the team’s domains…" /> : null}
          <ErrorMessage error={domains.error} />
          {!domains.isLoading && choices.length === 0 ? (
            <p>
              The team has no verified domain yet. <Link to="/domains">Add and verify one</Link> first.
            </p>
          ) : null}
          {choices.map((name) => (
            <div className="field-check" key={name}>
              <input
                id={`sso-domain-${name}`}
                type="checkbox"
                checked={covered.includes(name)}
                onChange={(event) => toggle(name, event.target.checked)}
                aria-describedby="sso-domains-hint"
              />
              <label htmlFor={`sso-domain-${name}`}>{name}</label>
              {verified.includes(name) ? null : <span className="badge badge-warn">not verified</span>}
            </div>
          ))}
          {domainsError ? (
            <span className="field-error" role="alert">
              {domainsError}
            </span>
          ) : null}
        </fieldset>
        {resetsTest ? (
          <div className="alert alert-warn" role="status">
            Changing the issuer, client ID or secret puts single sign-on back to “configured”: it must be tested (and
            activated, and enforced) again.
          </div>
        ) : null}
        {isPlanRefusal(save.error) ? (
          <PlanRefusal error={save.error} />
        ) : (
          <ErrorMessage error={save.error} title={save.error ? 'The settings were not saved.' : undefined} />
        )}
        <div className="form-actions">
          <Button type="submit" variant="primary" busy={save.isPending}>
            {configuration ? 'Save settings' : 'Save and continue'}
          </Button>
          {configuration && replacing ? (
            <Button
              variant="ghost"
              onClick={() => {
                setReplacing(false);
                setSecret('');
              }}
            >
              Keep the stored secret
            </Button>
          ) : null}
        </div>
      </form>
    </Card>
  );
}
