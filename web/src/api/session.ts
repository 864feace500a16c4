import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client';

export type Role = 'owner' | 'admin' | 'member';
export type SessionUser = {
  id: string;
  email: string;
  name: string | null;
  email_verified_at: string | null;
  /** A person who runs the appliance (no team): the shell shows the operator console. */
  operator?: boolean;
};
export type Session = {
  object: 'session';
  user: SessionUser;
  current_team: { id: string; name: string; slug: string; risk_state: string } | null;
  /** An operator whose MFA is not confirmed yet: the admin API refuses them until it is. */
  operator_mfa_required?: boolean;
};
export type Membership = { team: { id: string; name: string }; role: Role; current: boolean };

export const sessionKey = ['auth', 'session'] as const;
export const teamsKey = ['auth', 'teams'] as const;

/** The signed-in person, or null when nobody is (401): the shell decides what to show. */
export function useSession() {
  return useQuery({
    queryKey: sessionKey,
    queryFn: async () => {
      try {
        return await api.get<Session>('/auth/session');
      } catch (err) {
        if ((err as { status?: number }).status === 401) return null;
        throw err;
      }
    },
    staleTime: 60_000,
    retry: false,
  });
}

export function useTeams(enabled: boolean) {
  return useQuery({
    queryKey: teamsKey,
    queryFn: async () => (await api.get<{ data: Membership[] }>('/auth/teams')).data,
    enabled,
    staleTime: 60_000,
  });
}

/** The signed-in person's role in the current team (permission rules mirror the API's). */
export function useRole(): Role | null {
  const session = useSession();
  const teams = useTeams(Boolean(session.data?.current_team));
  return teams.data?.find((membership) => membership.current)?.role ?? null;
}

/** Why an admin-only action is disabled for this person, or null when they may do it. */
export function useAdminOnly(): string | null {
  const role = useRole();
  if (role === null || role === 'owner' || role === 'admin') return null;
  return 'Only a team owner or admin can do this. Ask one of them.';
}

/** After sign-in, sign-out or a team switch: everything cached belonged to the old session. */
export function useResetSession() {
  const client = useQueryClient();
  return async () => {
    client.removeQueries({ predicate: (query) => query.queryKey[0] !== 'auth' });
    await client.invalidateQueries({ queryKey: ['auth'] });
  };
}
