import { useId } from 'react';
import { DataTable } from '../../ui/table';

/**
 * A small chart over time drawn as inline SVG (no chart library: a few lines, bars and labels are
 * all the page needs, and nothing has to load from elsewhere). Lines for series that are compared
 * (sent and delivered), stacked bars for parts of one whole (bounces by type). Series differ by
 * dash pattern as well as colour, so the legend reads without colour; the numbers themselves are
 * in a table under each chart for screen readers and for anyone who wants them exactly.
 */
export type ChartSeries = { key: string; label: string; color: string; values: number[] };

const WIDTH = 720;
const HEIGHT = 210;
const MARGIN = { top: 12, right: 16, bottom: 36, left: 60 };
const DASHES = ['', '7 4', '2 4', '12 4 3 4', '4 2'];
const MAX_X_LABELS = 8;

/** Round steps (1, 2, 5 × 10ⁿ) up to at least `max`; integer steps for counts. */
export function niceTicks(max: number, integers: boolean, count = 4): number[] {
  const top = max > 0 ? max : integers ? 1 : 0.01;
  const rough = top / count;
  const power = 10 ** Math.floor(Math.log10(rough));
  let step = ([1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough) ?? 10 * power) as number;
  if (integers) step = Math.max(1, Math.ceil(step));
  const ticks: number[] = [];
  for (let k = 0; ticks.length === 0 || (ticks.at(-1) ?? 0) < top; k++) ticks.push(Number((k * step).toPrecision(12)));
  return ticks;
}

export function TimeChart({
  title,
  description,
  periods,
  periodTitles = periods,
  series,
  kind,
  format,
  integers = true,
}: {
  title: string;
  description: string;
  /** A short label per period (the x axis) and the same order as every series' values. */
  periods: string[];
  /** The same periods in full (the hover text and the table), when the axis label is short. */
  periodTitles?: string[];
  series: ChartSeries[];
  kind: 'line' | 'bar';
  format: (value: number) => string;
  integers?: boolean;
}) {
  // Also used in url(#...) references, where React's id characters are not safe.
  const id = `chart${useId().replace(/[^a-zA-Z0-9_-]/g, '')}`;
  const n = periods.length;
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const band = plotWidth / Math.max(1, n);
  const max =
    kind === 'bar'
      ? Math.max(0, ...periods.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0)))
      : Math.max(0, ...series.flatMap((s) => s.values));
  const ticks = niceTicks(max, integers);
  const top = ticks.at(-1) ?? 1;
  const x = (i: number) => MARGIN.left + band * (i + 0.5);
  const y = (value: number) => MARGIN.top + plotHeight - (value / top) * plotHeight;
  const labelEvery = Math.max(1, Math.ceil(n / MAX_X_LABELS));

  return (
    <figure className="chart" aria-labelledby={`${id}-title`}>
      <figcaption>
        <h2 id={`${id}-title`}>{title}</h2>
        <p className="muted chart-description" id={`${id}-desc`}>
          {description}
        </p>
      </figcaption>
      <ul className="chart-legend" aria-label={`Legend of ${title}`}>
        {series.map((s, index) => (
          <li key={s.key}>
            <svg width="28" height="12" aria-hidden="true" focusable="false">
              {kind === 'bar' ? (
                <>
                  <BarPattern id={`${id}-legend-${index}`} color={s.color} index={index} />
                  <rect x="6" y="1" width="16" height="10" fill={`url(#${id}-legend-${index})`} />
                </>
              ) : (
                <line x1="0" y1="6" x2="28" y2="6" stroke={s.color} strokeWidth="3" strokeDasharray={DASHES[index]} />
              )}
            </svg>
            {s.label}
          </li>
        ))}
      </ul>
      <svg
        className="chart-svg"
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-labelledby={`${id}-title`}
        aria-describedby={`${id}-desc`}
        focusable="false"
      >
        {ticks.map((tick) => (
          <g key={tick}>
            <line
              x1={MARGIN.left}
              x2={WIDTH - MARGIN.right}
              y1={y(tick)}
              y2={y(tick)}
              className={tick === 0 ? 'chart-axis' : 'chart-grid'}
            />
            <text x={MARGIN.left - 8} y={y(tick)} className="chart-label" textAnchor="end" dominantBaseline="middle">
              {format(tick)}
            </text>
          </g>
        ))}
        {periods.map((label, i) =>
          i % labelEvery === 0 ? (
            <text key={i} x={x(i)} y={HEIGHT - MARGIN.bottom + 18} className="chart-label" textAnchor="middle">
              {label}
            </text>
          ) : null,
        )}
        {kind === 'bar' ? (
          <>
            <defs>
              {series.map((s, index) => (
                <BarPattern key={s.key} id={`${id}-bar-${index}`} color={s.color} index={index} />
              ))}
            </defs>
            <Bars series={series} n={n} x={x} y={y} band={band} fill={(index) => `url(#${id}-bar-${index})`} />
          </>
        ) : null}
        {kind === 'line' ? <Lines series={series} x={x} y={y} /> : null}
        {/* One hover target per period: the browser shows its title with every value. */}
        {periodTitles.map((label, i) => (
          <rect
            key={i}
            x={MARGIN.left + band * i}
            y={MARGIN.top}
            width={band}
            height={plotHeight}
            className="chart-hover"
          >
            <title>{`${label}: ${series.map((s) => `${s.label} ${format(s.values[i] ?? 0)}`).join(', ')}`}</title>
          </rect>
        ))}
      </svg>
      <details className="chart-table">
        <summary>Show the numbers</summary>
        <DataTable
          caption={title}
          rows={periodTitles.map((label, index) => ({ label, index }))}
          rowKey={(row) => String(row.index)}
          columns={[
            { header: 'Period', cell: (row) => row.label, className: 'nowrap' },
            ...series.map((s) => ({
              header: s.label,
              cell: (row: { index: number }) => format(s.values[row.index] ?? 0),
              className: 'num',
            })),
          ]}
        />
      </details>
    </figure>
  );
}

function Lines({ series, x, y }: { series: ChartSeries[]; x: (i: number) => number; y: (v: number) => number }) {
  return (
    <>
      {series.map((s, index) => (
        <g key={s.key} stroke={s.color} fill={s.color}>
          <polyline
            points={s.values.map((value, i) => `${x(i)},${y(value)}`).join(' ')}
            fill="none"
            strokeWidth="2.5"
            strokeDasharray={DASHES[index]}
            strokeLinejoin="round"
          />
          {/* Points, so a single period (or a lone spike) is visible. */}
          {s.values.length <= 62 ? s.values.map((value, i) => <circle key={i} cx={x(i)} cy={y(value)} r="3" />) : null}
        </g>
      ))}
    </>
  );
}

function Bars({
  series,
  n,
  x,
  y,
  band,
  fill,
}: {
  series: ChartSeries[];
  n: number;
  x: (i: number) => number;
  y: (v: number) => number;
  band: number;
  fill: (index: number) => string;
}) {
  const width = Math.max(2, Math.min(40, band * 0.6));
  return (
    <>
      {Array.from({ length: n }, (_, i) => {
        let base = 0;
        return (
          <g key={i}>
            {series.map((s, index) => {
              const value = s.values[i] ?? 0;
              if (value <= 0) return null;
              const from = base;
              base += value;
              return (
                <rect
                  key={s.key}
                  x={x(i) - width / 2}
                  y={y(base)}
                  width={width}
                  height={Math.max(1, y(from) - y(base))}
                  fill={fill(index)}
                  stroke="#fff"
                  strokeWidth="1"
                />
              );
            })}
          </g>
        );
      })}
    </>
  );
}

/**
 * The fill of the index-th stacked series: solid, then stripes, then dots, so stacked parts differ
 * by texture as well as colour.
 */
function BarPattern({ id, color, index }: { id: string; color: string; index: number }) {
  const style = index % 3;
  return (
    <pattern
      id={id}
      width="6"
      height="6"
      patternUnits="userSpaceOnUse"
      patternTransform={style === 1 ? 'rotate(45)' : undefined}
    >
      <rect width="6" height="6" fill={color} />
      {style === 1 ? <rect width="2" height="6" fill="#fff" opacity="0.55" /> : null}
      {style === 2 ? <circle cx="3" cy="3" r="1.3" fill="#fff" opacity="0.7" /> : null}
    </pattern>
  );
}
