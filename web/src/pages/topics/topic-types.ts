export type TopicSubscription = 'opt_in' | 'opt_out';
export type Visibility = 'public' | 'private';

/** GET /topics item. */
export type Topic = {
  id: string;
  name: string;
  description: string | null;
  default_subscription: TopicSubscription;
  visibility: Visibility;
  created_at: string;
};

export const VISIBILITY_OPTIONS = [
  { value: 'private', label: 'Private: on the preference page only for contacts already opted in' },
  { value: 'public', label: 'Public: on every contact’s preference page' },
];

export const DEFAULT_WORDS: Record<TopicSubscription, string> = {
  opt_in: 'subscribed unless they opt out',
  opt_out: 'not subscribed until they opt in',
};
