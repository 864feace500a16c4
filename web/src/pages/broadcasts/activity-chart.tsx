/** One period of the chart: its start and a count per series. */
export type ChartPoint = { period: string; values: Record<string, number> };
export type ChartSeries = { key: string; label: string; className: string };

const WIDTH = 640;
const HEIGHT = 200;
const PAD = { top: 12, right: 12, bottom: 28, left: 40 };

/**
 * Counts over time as lines in plain SVG (no chart library): one line per series, a y axis
 * from zero to the largest count, the first and last period under the x axis. The numbers are
 * also in a table for screen readers and for reading exact values.
 */
export function ActivityChart({
  points,
  series,
  title,
}: {
  points: ChartPoint[];
  series: ChartSeries[];
  title: string;
}) {
  const max = Math.max(1, ...points.flatMap((p) => series.map((s) => p.values[s.key] ?? 0)));
  const innerW = WIDTH - PAD.left - PAD.right;
  const innerH = HEIGHT - PAD.top - PAD.bottom;
  const x = (i: number) => PAD.left + (points.length <= 1 ? innerW / 2 : (i / (points.length - 1)) * innerW);
  const y = (v: number) => PAD.top + innerH - (v / max) * innerH;
  const label = (iso: string) =>
    new Date(iso).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
  return (
    <figure className="activity-chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={title} preserveAspectRatio="xMidYMid meet">
        <line x1={PAD.left} y1={PAD.top} x2={PAD.left} y2={PAD.top + innerH} className="chart-axis" />
        <line x1={PAD.left} y1={PAD.top + innerH} x2={WIDTH - PAD.right} y2={PAD.top + innerH} className="chart-axis" />
        <text x={PAD.left - 6} y={PAD.top + 4} textAnchor="end" className="chart-label">
          {max}
        </text>
        <text x={PAD.left - 6} y={PAD.top + innerH} textAnchor="end" className="chart-label">
          0
        </text>
        {points.length > 0 ? (
          <>
            <text x={PAD.left} y={HEIGHT - 8} className="chart-label">
              {label(points[0]!.period)}
            </text>
            <text x={WIDTH - PAD.right} y={HEIGHT - 8} textAnchor="end" className="chart-label">
              {label(points.at(-1)!.period)}
            </text>
          </>
        ) : null}
        {series.map((s) => (
          <g key={s.key} className={s.className}>
            <polyline
              fill="none"
              strokeWidth={2}
              points={points.map((p, i) => `${x(i)},${y(p.values[s.key] ?? 0)}`).join(' ')}
            />
            {points.map((p, i) => (
              <circle key={p.period} cx={x(i)} cy={y(p.values[s.key] ?? 0)} r={2.5} />
            ))}
          </g>
        ))}
      </svg>
      <figcaption className="chart-legend">
        {series.map((s) => (
          <span key={s.key} className={`chart-key ${s.className}`}>
            <span className="chart-swatch" aria-hidden="true" /> {s.label}
          </span>
        ))}
      </figcaption>
      <table className="visually-hidden">
        <caption>{title}</caption>
        <thead>
          <tr>
            <th scope="col">Period</th>
            {series.map((s) => (
              <th key={s.key} scope="col">
                {s.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {points.map((p) => (
            <tr key={p.period}>
              <th scope="row">{label(p.period)}</th>
              {series.map((s) => (
                <td key={s.key}>{p.values[s.key] ?? 0}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
