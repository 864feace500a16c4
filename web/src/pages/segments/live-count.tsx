import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { ErrorMessage } from '../../ui/error-message';
import { useDebounced } from '../broadcasts/use-debounced';
import type { SegmentCounts } from './segment-types';

const number = new Intl.NumberFormat();
/** Typing pauses this long before the appliance counts (one count per pause, not per key). */
const DEBOUNCE_MS = 400;

/**
 * The live count while a filter is edited: POST /segments/preview once the filter has stopped
 * changing, "counting…" from the first change until the answer. A polite live region, so a
 * screen reader hears the new count without losing its place in the builder.
 */
export function LiveCount({ filter, problem }: { filter: Record<string, unknown> | null; problem: string | null }) {
  const key = filter ? JSON.stringify(filter) : null;
  const settled = useDebounced(key, DEBOUNCE_MS);
  const preview = useQuery({
    queryKey: ['/segments/preview', settled],
    queryFn: ({ signal }) => api.post<SegmentCounts>('/segments/preview', { filter: JSON.parse(settled!) }, { signal }),
    enabled: settled !== null,
    retry: false,
  });
  const counting = key !== null && (key !== settled || preview.isFetching);
  return (
    <div className="live-count" data-testid="live-count">
      <div role="status" aria-live="polite" aria-atomic="true">
        {problem ? (
          <span className="muted">{problem}</span>
        ) : counting ? (
          <span>
            <span className="spinner" aria-hidden="true" /> counting…
          </span>
        ) : preview.data ? (
          <span>
            <strong className="live-count-number">{number.format(preview.data.contacts)}</strong>{' '}
            {preview.data.contacts === 1 ? 'contact matches' : 'contacts match'} now (
            {number.format(preview.data.subscribed)} subscribed, {number.format(preview.data.unsubscribed)}{' '}
            unsubscribed)
          </span>
        ) : null}
      </div>
      {!counting && !problem ? <ErrorMessage error={preview.error} title="The count failed" /> : null}
    </div>
  );
}
