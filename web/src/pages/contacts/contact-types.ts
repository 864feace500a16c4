/** A contact as GET /contacts lists it (without properties). */
export type ContactItem = {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  created_at: string;
  unsubscribed: boolean;
};

/** GET /contacts/{contact}: the item with its properties (key to value). */
export type Contact = ContactItem & { object: 'contact'; properties: Record<string, string | number> };

export type Subscription = 'opt_in' | 'opt_out';

/** GET /contacts/{contact}/topics: every topic with the contact's effective subscription. */
export type ContactTopic = { id: string; name: string; description: string | null; subscription: Subscription };

/** GET /contacts/{contact}/consent: one recorded change of consent. */
export type ConsentRecord = {
  id: string;
  kind: 'unsubscribed' | 'topic';
  topic_id: string | null;
  /** 'unsubscribed' or 'subscribed' for the global opt-out; 'opt_in' or 'opt_out' for a topic. */
  value: string;
  source: string;
  ip: string | null;
  user_agent: string | null;
  created_at: string;
};

export const contactName = (c: Pick<ContactItem, 'first_name' | 'last_name'>) =>
  [c.first_name, c.last_name].filter(Boolean).join(' ');
