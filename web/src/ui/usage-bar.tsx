const number = new Intl.NumberFormat();

/** Use against a quota: the numbers in words, the bar only shows them (and turns red past the quota). */
export function UsageBar({
  label,
  used,
  quota,
  quotaWord,
  note,
}: {
  label: string;
  used: number;
  quota: number;
  quotaWord: string;
  note?: string;
}) {
  const share = quota > 0 ? used / quota : used > 0 ? 1 : 0;
  const over = quota > 0 && used > quota;
  const tone = over ? 'bad' : share >= 0.8 ? 'warn' : 'good';
  return (
    <div className="usage">
      <div className="usage-text">
        <strong>{label}</strong>
        <span>
          {number.format(used)} of {number.format(quota)} {quotaWord} ({Math.round(share * 100)} %)
          {over ? ', over the quota' : share >= 0.8 ? ', close to the quota' : ''}
        </span>
      </div>
      <div className="usage-track" aria-hidden="true">
        <div className={`usage-fill usage-${tone}`} style={{ width: `${Math.min(100, share * 100)}%` }} />
      </div>
      {note ? <span className="field-hint">{note}</span> : null}
    </div>
  );
}
