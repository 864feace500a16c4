import type { ThreadLabel } from './inbox-types';

const HEX = /^#[0-9a-fA-F]{6}$/;

/**
 * A label as a chip in its colour: the colour is the dot and the border, the name stays in the
 * page's text colour (any #RRGGBB a person picks keeps the name readable). `onRemove` adds an
 * "×" that takes the label off.
 */
export function LabelChip({ label, onRemove }: { label: ThreadLabel; onRemove?: () => void }) {
  const colour = HEX.test(label.color) ? label.color : '#8b95a1';
  return (
    <span className="label-chip" style={{ borderColor: colour }}>
      <span className="label-dot" aria-hidden="true" style={{ background: colour }} />
      {label.name}
      {onRemove ? (
        <button
          type="button"
          className="link-button"
          onClick={onRemove}
          aria-label={`Remove the label ${label.name}`}
          title={`Remove ${label.name}`}
        >
          ×
        </button>
      ) : null}
    </span>
  );
}

export function LabelChips({ labels, onRemove }: { labels: ThreadLabel[]; onRemove?: (label: ThreadLabel) => void }) {
  if (labels.length === 0) return null;
  return (
    <ul className="tag-list" aria-label="Labels">
      {labels.map((label) => (
        <li key={label.id}>
          <LabelChip label={label} onRemove={onRemove ? () => onRemove(label) : undefined} />
        </li>
      ))}
    </ul>
  );
}
