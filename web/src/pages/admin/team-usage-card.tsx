import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { api } from '../../api/client';
import { ErrorMessage } from '../../ui/error-message';
import { Card, Loading } from '../../ui/page';
import { Time } from '../../ui/time';
import { UsageBar } from '../../ui/usage-bar';
import type { Usage } from '../billing/billing-types';
import { count } from './format';

/** A count against its limit; "no limit" in words when the plan sets none. */
function Limited({
  label,
  used,
  limit,
  word,
}: {
  label: string;
  used: number;
  limit: number | null;
  word: string;
}): ReactNode {
  if (limit === null)
    return (
      <p>
        <strong>{label}:</strong> {count(used)} (no limit).
      </p>
    );
  return <UsageBar label={label} used={used} quota={limit} quotaWord={word} />;
}

/** What a team uses against its plan (its GET /usage, read by the operator). */
export function TeamUsageCard({ teamId }: { teamId: string }) {
  const usage = useQuery({
    queryKey: ['admin', 'team-usage', teamId],
    queryFn: () => api.get<Usage>(`/admin/teams/${encodeURIComponent(teamId)}/usage`),
  });
  const data = usage.data;
  return (
    <Card title="Usage" id="usage">
      <ErrorMessage error={usage.error} />
      {usage.isLoading ? <Loading label="Loading the usage…" /> : null}
      {data ? (
        <div className="stack">
          <Limited
            label="Emails this month"
            used={data.emails.monthly.used}
            limit={data.emails.monthly.limit}
            word="a month"
          />
          <Limited label="Emails today" used={data.emails.daily.used} limit={data.emails.daily.limit} word="a day" />
          <Limited label="Contacts" used={data.contacts.used} limit={data.contacts.limit} word="allowed" />
          <Limited label="Domains" used={data.domains.used} limit={data.domains.limit} word="allowed" />
          <Limited
            label="Automation runs this month"
            used={data.automation_runs.used}
            limit={data.automation_runs.limit}
            word="a month"
          />
          <p className="muted">
            {count(data.segments.used)} segments, {count(data.broadcasts.used)} broadcasts. Monthly counts restart{' '}
            <Time value={data.emails.monthly.resets_at} />.
          </p>
        </div>
      ) : null}
    </Card>
  );
}
