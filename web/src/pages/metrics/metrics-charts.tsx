import { Card } from '../../ui/page';
import { formatCount, formatPercent, periodLabel } from './metric-format';
import type { MetricName, MetricRow, MetricsAnswer } from './metrics-query';
import { TimeChart } from './time-chart';

/**
 * The charts of the page, one per family of metrics. Rates are split in two charts because a
 * complaint rate of 0.1 % would be a flat line on the scale of a 98 % delivery rate.
 */
type Chart = {
  id: string;
  title: string;
  description: string;
  kind: 'line' | 'bar';
  rates?: boolean;
  series: { metric: MetricName; label: string; color: string }[];
};

// Colours with at least 3:1 contrast on white (graphics, WCAG 1.4.11); dashes tell them apart too.
const CHARTS: Chart[] = [
  {
    id: 'volume',
    title: 'Sent and delivered',
    description: 'Emails accepted for sending, and those the receiving server accepted.',
    kind: 'line',
    series: [
      { metric: 'sent', label: 'Sent', color: '#3646c9' },
      { metric: 'delivered', label: 'Delivered', color: '#176c34' },
    ],
  },
  {
    id: 'bounces',
    title: 'Bounces by type',
    description:
      'Permanent bounces (the address does not exist; it is added to the suppressions), transient ones (a full mailbox, a busy server) and undetermined ones.',
    kind: 'bar',
    series: [
      { metric: 'bounced_permanent', label: 'Permanent', color: '#b42318' },
      { metric: 'bounced_transient', label: 'Transient', color: '#8a5200' },
      { metric: 'bounced_undetermined', label: 'Undetermined', color: '#57606a' },
    ],
  },
  {
    id: 'complaints',
    title: 'Complaints',
    description: 'Recipients who marked an email as spam.',
    kind: 'bar',
    series: [{ metric: 'complained', label: 'Complained', color: '#b42318' }],
  },
  {
    id: 'engagement',
    title: 'Opens and clicks',
    description: 'Opens and link clicks, where tracking is on for the domain.',
    kind: 'line',
    series: [
      { metric: 'opened', label: 'Opened', color: '#0b5c8a' },
      { metric: 'clicked', label: 'Clicked', color: '#6b3fa0' },
    ],
  },
  {
    id: 'delivery-rates',
    title: 'Delivery and engagement rates',
    description: 'Delivered out of sent; opened and clicked out of delivered.',
    kind: 'line',
    rates: true,
    series: [
      { metric: 'delivery_rate', label: 'Delivery rate', color: '#176c34' },
      { metric: 'open_rate', label: 'Open rate', color: '#0b5c8a' },
      { metric: 'click_rate', label: 'Click rate', color: '#6b3fa0' },
    ],
  },
  {
    id: 'problem-rates',
    title: 'Bounce and complaint rates',
    description: 'Bounced and complained out of sent.',
    kind: 'line',
    rates: true,
    series: [
      { metric: 'bounce_rate', label: 'Bounce rate', color: '#b42318' },
      { metric: 'complaint_rate', label: 'Complaint rate', color: '#8a5200' },
    ],
  },
];

export function MetricsCharts({ answer, timeZone }: { answer: MetricsAnswer; timeZone: string }) {
  const rows: MetricRow[] = answer.data ?? [];
  const periods = rows.map((row) => periodLabel(row.period, answer.granularity, timeZone));
  const titles = rows.map((row) => periodLabel(row.period, answer.granularity, timeZone, true));
  return (
    <div className="metrics-charts">
      {CHARTS.map((chart) => (
        <Card key={chart.id}>
          <TimeChart
            title={chart.title}
            description={chart.description}
            kind={chart.kind}
            periods={periods}
            periodTitles={titles}
            integers={!chart.rates}
            format={chart.rates ? formatPercent : formatCount}
            series={chart.series.map((s) => ({
              key: s.metric,
              label: s.label,
              color: s.color,
              values: rows.map((row) => row[s.metric] ?? 0),
            }))}
          />
        </Card>
      ))}
    </div>
  );
}
