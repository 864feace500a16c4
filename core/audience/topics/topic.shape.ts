import type { Topic } from './topic.types.js';

export function publicTopicItem(t: Topic) {
  return {
    id: t.id,
    name: t.name,
    description: t.description,
    default_subscription: t.defaultSubscription,
    visibility: t.visibility,
    created_at: t.createdAt.toISOString(),
  };
}

export function publicTopic(t: Topic) {
  return { object: 'topic' as const, ...publicTopicItem(t) };
}
