import { formatCount, formatPercent } from './metric-format';
import type { MetricValues } from './metrics-query';

/** The range's totals at a glance, each with the rate it feeds. */
export function TotalsCards({ totals }: { totals: MetricValues }) {
  const cards: [string, number, string | null][] = [
    ['Sent', totals.sent, null],
    ['Delivered', totals.delivered, `${formatPercent(totals.delivery_rate)} of sent`],
    ['Bounced', totals.bounced, `${formatPercent(totals.bounce_rate)} of sent`],
    ['Complained', totals.complained, `${formatPercent(totals.complaint_rate)} of sent`],
    ['Opened', totals.opened, `${formatPercent(totals.open_rate)} of delivered`],
    ['Clicked', totals.clicked, `${formatPercent(totals.click_rate)} of delivered`],
  ];
  return (
    <section aria-label="Totals over the range" className="grid-cards metrics-totals">
      {cards.map(([label, value, rate]) => (
        <div className="stat" key={label}>
          <div className="stat-label">{label}</div>
          <div className="stat-value">{formatCount(value)}</div>
          {rate ? <div className="stat-label">{rate}</div> : null}
        </div>
      ))}
    </section>
  );
}
