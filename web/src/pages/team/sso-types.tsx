import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError } from '../../api/client';
import { Link } from '../../router';

/** GET /team/sso (never the client secret: the API keeps it write-only). */
export type SsoStatus = 'configured' | 'tested' | 'active' | 'failing';
export type SsoConfiguration = {
  object: 'sso_configuration';
  status: SsoStatus;
  issuer: string;
  client_id: string;
  domains: string[];
  enforced: boolean;
  redirect_uri: string;
  tested_at: string | null;
  /** Set when it was switched on (cleared when turned off). */
  activated_at: string | null;
  active: boolean;
  last_error: string | null;
  last_sign_in_at: string | null;
  created_at: string;
  updated_at: string;
  /** PUT and PATCH answers only: the password sessions of covered addresses that enforcement ended. */
  password_sessions_ended?: number;
};

export type SsoSignIn = {
  object: 'sso_sign_in';
  id: string;
  user_id: string | null;
  email: string | null;
  name: string | null;
  outcome: 'signed_in' | 'joined' | 'tested' | 'failed';
  error: string | null;
  created_at: string;
};

/** PUT /team/sso: the secret only when it is set or replaced (omitted keeps the stored one). */
export type SsoInput = { issuer: string; client_id: string; client_secret?: string; domains: string[] };

export const ssoKey = ['team', 'sso'] as const;
export const ssoSignInsPath = '/team/sso/sign-ins';

/** The status in words, the badge's tone key (ui/badge.tsx) and what it means for sign-in. */
export const STATUS_WORDS: Record<SsoStatus, { label: string; tone: string; meaning: string }> = {
  configured: {
    label: 'Configured',
    tone: 'pending',
    meaning: 'Saved, not tested yet. Nobody signs in with it until a test succeeds and it is activated.',
  },
  tested: {
    label: 'Tested',
    tone: 'queued',
    meaning: 'A test sign-in went through the provider. Activate it to offer it on the sign-in page.',
  },
  active: { label: 'Active', tone: 'active', meaning: 'Offered on the sign-in page for the covered domains.' },
  failing: {
    label: 'Failing',
    tone: 'failed',
    meaning: 'The last sign-in through the provider failed. Check the settings and test again.',
  },
};

/** Why a callback (test or sign-in) failed, in words; the codes of GET /auth/sso/callback. */
export const SSO_ERROR_WORDS: Record<string, string> = {
  state_invalid: 'The sign-in took too long or was started in another browser. Start again.',
  token_invalid: 'The identity provider’s answer could not be verified (its token was refused).',
  email_unverified: 'The identity provider does not vouch for this e-mail address (it is not marked verified).',
  domain_not_covered: 'This address is not on a domain that single sign-on covers for the team.',
  provider_error: 'The identity provider refused the sign-in or could not be reached.',
  not_configured: 'Single sign-on is not set up (or no longer active) for this address.',
};

export const ssoErrorText = (code: string) => SSO_ERROR_WORDS[code] ?? `The sign-in failed (${code}).`;

/**
 * The team's configuration: null when none is saved (404). A 403 is kept as the error: a plan
 * without SSO answers validation_error, a member invalid_permission; the page explains each.
 */
export function useSsoConfiguration(enabled = true) {
  return useQuery({
    queryKey: ssoKey,
    enabled,
    retry: false,
    queryFn: async () => {
      try {
        return await api.get<SsoConfiguration>('/team/sso');
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return null;
        throw err;
      }
    },
  });
}

/** A refusal because the team's plan does not include single sign-on. */
export const isPlanRefusal = (error: unknown) =>
  error instanceof ApiError && error.status === 403 && error.errorName === 'validation_error';

/** A write to /team/sso whose answer is the configuration: the cache and the team's summary follow. */
export function useSsoWrite<V>(write: (value: V) => Promise<SsoConfiguration>, onDone?: (c: SsoConfiguration) => void) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: write,
    onSuccess: async (configuration) => {
      client.setQueryData(ssoKey, configuration);
      onDone?.(configuration);
      await client.invalidateQueries({ queryKey: ['team'], exact: true });
      await client.invalidateQueries({ queryKey: [ssoSignInsPath] });
    },
  });
}

/**
 * The plan's refusal (403 validation_error) in words, with where a plan is chosen; without an
 * error, the same said before anything is asked (the team's plan says it lacks single sign-on).
 */
export function PlanRefusal({ error }: { error?: unknown }) {
  return (
    <div className="alert alert-warn" role="alert">
      <strong>The team’s plan does not include single sign-on.</strong>{' '}
      {error instanceof ApiError ? sentence(error.message) : null} A plan that includes it is chosen on the{' '}
      <Link to="/billing">Billing</Link> page, or by the appliance’s operator.
    </div>
  );
}

/** An API message as a sentence (some end without a full stop). */
export const sentence = (text: string) => text.replace(/[.!?]?\s*$/, '.');
