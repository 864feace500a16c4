import type { ReactNode } from 'react';

const number = new Intl.NumberFormat();

export type CountRow = { key: string; label: ReactNode; count: number; detail?: ReactNode };

/**
 * Counts as a table with a bar beside each number: the numbers carry the meaning (and are what
 * a screen reader reads), the bars only let the eye find the biggest at a glance.
 */
export function CountBars({
  caption,
  labelHeader,
  detailHeader,
  rows,
  empty,
}: {
  caption: string;
  labelHeader: string;
  detailHeader?: string;
  rows: CountRow[];
  empty: ReactNode;
}) {
  if (rows.length === 0) return <>{empty}</>;
  const max = Math.max(1, ...rows.map((row) => row.count));
  return (
    <div className="table-wrap">
      <table className="table count-bars">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{labelHeader}</th>
            <th scope="col" className="num">
              Messages
            </th>
            <th scope="col" className="count-bar-cell">
              <span className="visually-hidden">Share</span>
            </th>
            {detailHeader ? <th scope="col">{detailHeader}</th> : null}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.key}>
              <th scope="row">{row.label}</th>
              <td className="num">{number.format(row.count)}</td>
              <td className="count-bar-cell" aria-hidden="true">
                {row.count > 0 ? <span className="count-bar" style={{ width: `${(row.count / max) * 100}%` }} /> : null}
              </td>
              {detailHeader ? <td>{row.detail}</td> : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
