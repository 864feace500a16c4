const absolute = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

const STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['second', 60],
  ['minute', 60],
  ['hour', 24],
  ['day', 30],
  ['month', 12],
  ['year', Infinity],
];

export function formatRelative(date: Date, now = Date.now()): string {
  let value = (date.getTime() - now) / 1000;
  for (const [unit, size] of STEPS) {
    if (Math.abs(value) < size) return relative.format(Math.round(value), unit);
    value /= size;
  }
  return absolute.format(date);
}

/** A time as "3 minutes ago", with the exact time on hover and for machines. */
export function Time({
  value,
  mode = 'relative',
}: {
  value: string | null | undefined;
  mode?: 'relative' | 'absolute';
}) {
  if (!value) return <span className="muted">—</span>;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return <span>{value}</span>;
  return (
    <time dateTime={date.toISOString()} title={absolute.format(date)}>
      {mode === 'relative' ? formatRelative(date) : absolute.format(date)}
    </time>
  );
}
