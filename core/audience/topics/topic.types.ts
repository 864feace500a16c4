export const SUBSCRIPTIONS = ['opt_in', 'opt_out'] as const;
export type Subscription = (typeof SUBSCRIPTIONS)[number];
export const VISIBILITIES = ['public', 'private'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

export type Topic = {
  id: string;
  teamId: string;
  name: string;
  description: string | null;
  /** Fixed at creation. */
  defaultSubscription: Subscription;
  visibility: Visibility;
  createdAt: Date;
};
