import { Button } from './button';

/** Cursor paging: newer and older pages, without counting the whole list. */
export function Pager({
  hasPrevious,
  hasNext,
  onPrevious,
  onNext,
  busy,
}: {
  hasPrevious: boolean;
  hasNext: boolean;
  onPrevious: () => void;
  onNext: () => void;
  busy?: boolean;
}) {
  if (!hasPrevious && !hasNext) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <Button onClick={onPrevious} disabled={!hasPrevious || busy}>
        ← Newer
      </Button>
      <Button onClick={onNext} disabled={!hasNext || busy}>
        Older →
      </Button>
    </nav>
  );
}

/** The pager of a `useCursorList` answer. */
export function ListPager({
  list,
}: {
  list: { hasPrevious: boolean; hasNext: boolean; previous: () => void; next: () => void; isFetching: boolean };
}) {
  return (
    <Pager
      hasPrevious={list.hasPrevious}
      hasNext={list.hasNext}
      onPrevious={list.previous}
      onNext={list.next}
      busy={list.isFetching}
    />
  );
}
