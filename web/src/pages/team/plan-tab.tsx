import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { Link } from '../../router';
import { ErrorMessage } from '../../ui/error-message';
import { Card, DescriptionList, Loading } from '../../ui/page';
import { UsageBar } from '../../ui/usage-bar';
import type { Team } from './team-query';

type Billing = {
  object: 'billing';
  plan: { code: string; name: string; monthly_price_cents: number; included_emails: number };
  usage: {
    period_start: string;
    period_end: string;
    emails: number;
    included_emails: number;
    emails_today: number;
    day_start: string;
    daily_limit: number | null;
    monthly_limit: number | null;
    marketing_emails: number;
    marketing_included_emails: number;
  };
};

const number = new Intl.NumberFormat();
const day = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
const dayOf = (date: string) => day.format(new Date(`${date.slice(0, 10)}T00:00:00Z`));

/** The plan and this month's use of it (GET /billing), with the plan's other limits (GET /team). */
export function PlanTab({ team }: { team: Team }) {
  const billing = useQuery({ queryKey: ['billing'], queryFn: () => api.get<Billing>('/billing') });
  if (billing.isLoading) return <Loading />;
  const data = billing.data;
  const limits = team.plan.limits;
  return (
    <>
      <ErrorMessage error={billing.error} />
      {data ? (
        <Card title={`Usage, ${dayOf(data.usage.period_start)} to ${dayOf(data.usage.period_end)}`} id="usage">
          <div className="stack">
            <UsageBar
              label="Emails this month"
              used={data.usage.emails}
              quota={data.usage.monthly_limit ?? data.usage.included_emails}
              quotaWord={data.usage.monthly_limit !== null ? 'monthly limit' : 'included'}
            />
            {data.usage.daily_limit !== null ? (
              <UsageBar
                label="Emails today"
                used={data.usage.emails_today}
                quota={data.usage.daily_limit}
                quotaWord="daily limit"
                note="The day starts at 00:00 UTC."
              />
            ) : (
              <p>
                <strong>Emails today:</strong> {number.format(data.usage.emails_today)} (no daily limit).
              </p>
            )}
            {data.usage.marketing_included_emails > 0 || data.usage.marketing_emails > 0 ? (
              <UsageBar
                label="Broadcast emails this month"
                used={data.usage.marketing_emails}
                quota={data.usage.marketing_included_emails}
                quotaWord="included"
              />
            ) : null}
          </div>
        </Card>
      ) : null}
      <Card title={`Plan: ${data?.plan.name ?? team.plan.name}`} id="plan">
        <DescriptionList
          items={[
            ['Plan', `${team.plan.name} (${team.plan.code})`],
            ['Emails included a month', number.format(limits.included_emails)],
            ['Daily cap', limits.daily_cap === null ? 'None' : number.format(limits.daily_cap)],
            ['Domains', `Up to ${number.format(limits.domain_limit)}`],
            ['Webhook endpoints', `Up to ${number.format(limits.webhook_endpoint_limit)}`],
            ['History kept', `${number.format(limits.retention_days)} days`],
          ]}
        />
        <p className="muted">
          Subscription, plans on sale, invoices and everything the plan counts: <Link to="/billing">Billing</Link>.
        </p>
      </Card>
    </>
  );
}
