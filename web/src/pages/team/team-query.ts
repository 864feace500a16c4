import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';

/** The team object of GET/PATCH /team (spec: Team object), as far as these pages read it. */
export type PostalAddress = {
  line1: string;
  line2: string | null;
  city: string;
  state: string | null;
  postal_code: string;
  country: string;
};

export const FONTS = ['system', 'helvetica', 'arial', 'verdana', 'georgia', 'times', 'courier'] as const;
export const BUTTON_STYLES = ['square', 'rounded', 'pill'] as const;

export type BrandKit = {
  logo_url: string | null;
  primary_color: string | null;
  accent_color: string | null;
  font: (typeof FONTS)[number] | null;
  button_style: (typeof BUTTON_STYLES)[number] | null;
  company_name: string | null;
  address: string | null;
  footer_text: string | null;
};

export type Team = {
  object: 'team';
  id: string;
  name: string;
  slug: string;
  created_at: string;
  plan: {
    code: string;
    name: string;
    limits: {
      included_emails: number;
      daily_cap: number | null;
      domain_limit: number;
      webhook_endpoint_limit: number;
      retention_days: number;
    };
    /** Whether the plan includes single sign-on. */
    single_sign_on: boolean;
  };
  sender_identity: { sender_name: string | null; postal_address: PostalAddress | null };
  brand_kit: BrandKit;
  ai_assist_enabled: boolean;
  /** The single sign-on summary (null: none configured); absent from an appliance without SSO. */
  sso?: {
    status: 'configured' | 'tested' | 'active' | 'failing';
    issuer: string;
    client_id: string;
    enforced: boolean;
    domains: string[];
  } | null;
};

export type TeamChanges = {
  name?: string;
  sender_name?: string | null;
  postal_address?: Partial<PostalAddress>;
  brand_kit?: BrandKit | null;
  ai_assist_enabled?: boolean;
};

export const teamKey = ['team'] as const;

export function useTeam() {
  return useQuery({ queryKey: teamKey, queryFn: () => api.get<Team>('/team') });
}

/**
 * PATCH /team. The answer is the whole team, so the cache takes it as it is; the session's
 * team name (the shell, the team switcher) is read again after a rename.
 */
export function useUpdateTeam(onDone?: (team: Team) => void) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (changes: TeamChanges) => api.patch<Team>('/team', changes),
    onSuccess: async (team, changes) => {
      client.setQueryData(teamKey, team);
      if (changes.name !== undefined) await client.invalidateQueries({ queryKey: ['auth'] });
      onDone?.(team);
    },
  });
}

/** '' as null: an emptied optional field clears it. */
export const orNull = (value: string) => (value.trim() === '' ? null : value.trim());
