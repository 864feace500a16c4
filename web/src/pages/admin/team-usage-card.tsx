import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { ErrorMessage } from '../../ui/error-message';
import { Card, Loading } from '../../ui/page';
import type { Usage } from '../billing/billing-types';
import { UsageDetails } from '../billing/usage-card';

/** What a team uses against its plan (its GET /usage, read by the operator): the Billing page's rows. */
export function TeamUsageCard({ teamId }: { teamId: string }) {
  const usage = useQuery({
    queryKey: ['admin', 'team-usage', teamId],
    queryFn: () => api.get<Usage>(`/admin/teams/${encodeURIComponent(teamId)}/usage`),
  });
  return (
    <Card title="Usage" id="usage">
      <ErrorMessage error={usage.error} />
      {usage.isLoading ? <Loading label="Loading the usage…" /> : null}
      {usage.data ? <UsageDetails data={usage.data} /> : null}
    </Card>
  );
}
