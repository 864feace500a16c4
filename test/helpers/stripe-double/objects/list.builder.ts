import type Stripe from 'stripe';

/** Stripe's list envelope. */
export function buildList<T>(data: T[], url: string, hasMore: boolean): Stripe.ApiList<T> {
  return { object: 'list', data, has_more: hasMore, url };
}

/**
 * One page of `items` (already newest first), as Stripe pages a list: `limit` (default 10,
 * 1..100) items after the one whose id is `startingAfter`.
 */
export function page<T extends { id: string }>(
  items: T[],
  limit: number,
  startingAfter: string | undefined,
): { data: T[]; hasMore: boolean } {
  let start = 0;
  if (startingAfter !== undefined) {
    const index = items.findIndex((item) => item.id === startingAfter);
    start = index + 1;
  }
  const data = items.slice(start, start + limit);
  return { data, hasMore: start + limit < items.length };
}
