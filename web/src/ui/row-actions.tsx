import { Button } from './button';

/**
 * A list row's Edit and Delete buttons, each named for the row for screen readers ("Edit plan",
 * "Delete plan"); `editLabel` when editing changes one part only ("Edit schema").
 */
export function RowActions({
  name,
  onEdit,
  onDelete,
  editLabel = 'Edit',
}: {
  name: string;
  onEdit: () => void;
  onDelete: () => void;
  editLabel?: string;
}) {
  return (
    <div className="row-actions">
      <Button
        className="btn-small"
        onClick={onEdit}
        aria-label={`${editLabel} ${editLabel === 'Edit' ? '' : 'of '}${name}`}
      >
        {editLabel}
      </Button>
      <Button className="btn-small" variant="danger" onClick={onDelete} aria-label={`Delete ${name}`}>
        Delete
      </Button>
    </div>
  );
}
