import { useEffect, useRef, useState } from 'react';
import type { ContactImport } from './import-types';

const number = new Intl.NumberFormat();

/**
 * Rows per second from the polls this page has seen (the API keeps no rate): the rows done
 * since the first observation in progress, over the time since. Null until two observations.
 */
function useRate(imp: ContactImport): number | null {
  const first = useRef<{ at: number; rows: number } | null>(null);
  const [rate, setRate] = useState<number | null>(null);
  useEffect(() => {
    const now = performance.now();
    if (imp.status === 'queued') return;
    if (!first.current) {
      first.current = { at: now, rows: imp.counts.total };
      return;
    }
    const seconds = (now - first.current.at) / 1000;
    if (seconds > 0 && imp.counts.total > first.current.rows)
      setRate((imp.counts.total - first.current.rows) / seconds);
  }, [imp.status, imp.counts.total]);
  return rate;
}

/**
 * The progress bar: rows done out of the file's rows (counted in the browser at upload, carried
 * in the address; without it the bar shows rows done only), failed rows, and the rate. The bar
 * is a native progressbar role with its numbers in words beside it.
 */
export function ImportProgress({ imp, totalRows }: { imp: ContactImport; totalRows: number | null }) {
  const rate = useRate(imp);
  const done = imp.counts.total;
  const finished = imp.status === 'completed';
  const whole = finished ? Math.max(done, totalRows ?? done) : totalRows;
  const share = whole ? Math.min(1, done / whole) : null;
  const label =
    imp.status === 'queued'
      ? 'Waiting for the scheduler to start it'
      : whole
        ? `${number.format(done)} of ${number.format(whole)} rows done`
        : `${number.format(done)} rows done`;
  return (
    <div className="import-progress">
      <div className="usage-text">
        <strong id="import-progress-label">Progress</strong>
        <span data-testid="import-progress-text">
          {label}
          {share !== null && imp.status !== 'queued' ? ` (${Math.round(share * 100)} %)` : ''}
        </span>
      </div>
      <div
        className="usage-track"
        role="progressbar"
        aria-labelledby="import-progress-label"
        aria-valuemin={0}
        aria-valuemax={whole ?? undefined}
        aria-valuenow={whole ? done : undefined}
        aria-valuetext={label}
      >
        <div
          className={`usage-fill usage-${imp.status === 'failed' ? 'bad' : 'good'}${share === null ? ' progress-unknown' : ''}`}
          style={{ width: `${(share ?? (finished ? 1 : 0)) * 100}%` }}
        />
      </div>
      <p className="import-progress-numbers">
        <span>
          <strong>{number.format(imp.counts.failed)}</strong> failed
        </span>
        <span>
          <strong>{number.format(imp.counts.created)}</strong> created
        </span>
        <span>
          <strong>{number.format(imp.counts.updated)}</strong> updated
        </span>
        <span>
          <strong>{number.format(imp.counts.skipped)}</strong> skipped
        </span>
        <span>
          Rate: <strong>{rate === null ? '—' : `${number.format(Math.round(rate))} rows/s`}</strong>
        </span>
      </p>
    </div>
  );
}
