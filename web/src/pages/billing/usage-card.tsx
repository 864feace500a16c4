import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { ErrorMessage } from '../../ui/error-message';
import { Card, Loading } from '../../ui/page';
import { Time } from '../../ui/time';
import { UsageBar } from '../../ui/usage-bar';
import type { Usage } from './billing-types';

const number = new Intl.NumberFormat();

/** The rate limit's window ("1000ms", "1s", "60s") in words. */
function durationWords(duration: string): string {
  const match = /^(\d+)(ms|s)$/.exec(duration);
  if (!match) return duration;
  const seconds = Number(match[1]) / (match[2] === 'ms' ? 1000 : 1);
  return seconds === 1 ? 'second' : `${number.format(seconds)} seconds`;
}

/** Everything the plan counts (GET /usage), each against its limit; "no limit" in words. */
export function UsageCard() {
  const usage = useQuery({ queryKey: ['usage'], queryFn: () => api.get<Usage>('/usage') });
  if (usage.isLoading) return <Loading label="Loading the usage…" />;
  const data = usage.data;
  return (
    <Card title="Usage" id="usage">
      <ErrorMessage error={usage.error} />
      {data ? <UsageDetails data={data} /> : null}
    </Card>
  );
}

/** Every count of a team's GET /usage against its limit: the Billing page's and the operator's team page. */
export function UsageDetails({ data }: { data: Usage }) {
  return (
    <div className="stack">
      <UsageBar
        label="Emails this month"
        used={data.emails.monthly.used}
        quota={data.emails.monthly.limit}
        quotaWord="a month"
        note={`${number.format(data.emails.monthly.sent)} sent, ${number.format(data.emails.monthly.received)} received.`}
      />
      <Limited label="Emails today" used={data.emails.daily.used} limit={data.emails.daily.limit} word="a day" />
      <UsageBar label="Contacts" used={data.contacts.used} quota={data.contacts.limit} quotaWord="allowed" />
      <Limited label="Domains" used={data.domains.used} limit={data.domains.limit} word="allowed" />
      <Limited label="AI credits this month" used={data.ai_credits.used} limit={data.ai_credits.limit} word="a month" />
      <UsageBar
        label="Automation runs this month"
        used={data.automation_runs.used}
        quota={data.automation_runs.limit}
        quotaWord="a month"
      />
      <p className="muted">
        {number.format(data.segments.used)} segments, {number.format(data.broadcasts.used)} broadcasts. API requests: up
        to {number.format(data.rate_limit.limit)} per {durationWords(data.rate_limit.duration)}. Monthly counts restart{' '}
        <Time value={data.emails.monthly.resets_at} />.
      </p>
    </div>
  );
}

function Limited({ label, used, limit, word }: { label: string; used: number; limit: number | null; word: string }) {
  if (limit === null)
    return (
      <p>
        <strong>{label}:</strong> {number.format(used)} (no limit).
      </p>
    );
  return <UsageBar label={label} used={used} quota={limit} quotaWord={word} />;
}
