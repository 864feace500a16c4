import { Link, useSearchParam } from '../../router';
import { ErrorMessage } from '../../ui/error-message';
import { EmptyState, Loading, PageHeader } from '../../ui/page';
import { Time } from '../../ui/time';
import { MetricsCharts } from './metrics-charts';
import { MetricsFilterBar } from './metrics-filters';
import { browserTimeZone, granularityFor, rangeOf, useMetrics, type MetricsFilters } from './metrics-query';
import { ReputationCards } from './reputation-cards';
import { TotalsCards } from './totals-cards';

/**
 * Delivery and engagement over time (GET /emails/metrics with the period dimension): totals, the
 * two reputation rates against their thresholds, and a chart per family of metrics. The filters
 * are in the URL; the time zone defaults to the browser's, so days are the person's days.
 */
export default function MetricsPage() {
  const [rangeParam, setRange] = useSearchParam('range');
  const [granularityParam, setGranularity] = useSearchParam('granularity');
  const [tzParam, setTz] = useSearchParam('tz');
  const [domainParam, setDomain] = useSearchParam('domain');
  const range = rangeOf(rangeParam);
  const filters: MetricsFilters = {
    range: range.value,
    granularity: granularityFor(range, granularityParam),
    timeZone: tzParam || browserTimeZone(),
    domainId: domainParam,
  };
  const metrics = useMetrics(filters);
  const onChange = (name: 'range' | 'granularity' | 'tz' | 'domain', value: string) => {
    if (name === 'range') {
      setRange(value);
      // A period size the new range does not offer would be replaced anyway: drop it from the URL.
      if (granularityFor(rangeOf(value), granularityParam) !== granularityParam) setGranularity(null);
    } else if (name === 'granularity') setGranularity(value);
    else if (name === 'tz') setTz(value === browserTimeZone() ? null : value);
    else setDomain(value);
  };
  const answer = metrics.data;
  const nothingSent = answer ? answer.totals.sent === 0 && answer.totals.attempted === 0 : false;
  return (
    <>
      <PageHeader
        title="Metrics"
        description="What happened to the email you sent: delivery, bounces, complaints and engagement over time."
      />
      <MetricsFilterBar filters={filters} onChange={onChange} />
      <ErrorMessage error={metrics.error} title="The metrics could not be read." />
      {metrics.isLoading ? <Loading label="Counting…" /> : null}
      {answer ? (
        <div aria-busy={metrics.isFetching || undefined} className="metrics-body">
          <p className="muted metrics-as-of">
            {answer.data_as_of ? (
              <>
                Counted up to <Time value={answer.data_as_of} mode="absolute" />. Periods follow the{' '}
                {filters.timeZone.replace(/_/g, ' ')} time zone.
              </>
            ) : (
              'The counts are rolled up every minute; the first roll-up has not run yet.'
            )}
          </p>
          {nothingSent ? (
            <div className="card">
              <EmptyState title="Nothing was sent in this range">
                Choose a longer range or another domain, or send an email (see <Link to="/emails">Emails</Link>). The
                charts fill in as mail goes out.
              </EmptyState>
            </div>
          ) : (
            <>
              <ReputationCards bounceRate={answer.totals.bounce_rate} complaintRate={answer.totals.complaint_rate} />
              <TotalsCards totals={answer.totals} />
              <MetricsCharts answer={answer} timeZone={filters.timeZone} />
            </>
          )}
        </div>
      ) : null}
    </>
  );
}
