import { ApiError, api } from '../../api/client';
import type { QueueAction, QueueFilter } from './admin-types';

export type ActionName = 'hold' | 'release' | 'retry';

/** Only the filter fields given: an empty field must not be sent (the API would refuse it). */
export function cleanFilter(filter: QueueFilter): QueueFilter {
  return Object.fromEntries(Object.entries(filter).filter(([, value]) => value && value.trim() !== '')) as QueueFilter;
}

export const runAction = (action: ActionName, filter: QueueFilter) =>
  api.post<QueueAction>(`/admin/queue/${action}`, cleanFilter(filter));

export const purge = (filter: QueueFilter) =>
  api.post<QueueAction>('/admin/queue/purge', { ...cleanFilter(filter), confirm: true });

/**
 * How many waiting messages a purge would remove: the API answers a purge without `confirm`
 * with 409 confirmation_required and that number (`details.would_remove`), changing nothing.
 */
export async function purgePreview(filter: QueueFilter): Promise<{ count: number; message: string }> {
  try {
    await api.post('/admin/queue/purge', cleanFilter(filter));
  } catch (error) {
    const wouldRemove = error instanceof ApiError ? error.details.would_remove : undefined;
    if (error instanceof ApiError && error.status === 409 && typeof wouldRemove === 'number')
      return { count: wouldRemove, message: error.message };
    throw error;
  }
  throw new Error('The appliance purged without a confirmation: reload the page to see the queue.');
}
