import { useQuery } from '@tanstack/react-query';
import { api, type List } from '../../api/client';
import type { DomainItem } from '../domains/domain-types';

/** GET /api-keys rows (api/serializers/api-key.serializer.ts); the token is never listed. */
export type ApiKey = {
  object: 'api_key';
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
  permission: Permission;
  domain_id: string | null;
  key_prefix: string;
  status: 'active' | 'revoked' | 'suspended';
  last_used_request_log_id: string | null;
};
export type Permission = 'full_access' | 'sending_access';

export const PERMISSIONS: { value: Permission; label: string }[] = [
  { value: 'full_access', label: 'Full access' },
  { value: 'sending_access', label: 'Sending access' },
];
export const permissionLabel = (permission: string) =>
  PERMISSIONS.find((entry) => entry.value === permission)?.label ?? permission;

/**
 * The team's domains, to name a key's pin and to offer one when creating a key. The list route
 * pages at 100 and has no name look-up by id, so a team with more domains sees ids past those.
 */
export function useTeamDomains() {
  return useQuery({
    queryKey: ['/domains', 'list', 'for-api-keys'],
    queryFn: ({ signal }) => api.get<List<DomainItem>>('/domains', { query: { limit: 100 }, signal }),
    staleTime: 60_000,
    select: (list) => list.data,
  });
}
