/**
 * What a team uses that a plan counts or a payment provider may bill, one category each:
 * transactional and marketing emails (accepted), received emails (kept), AI credits (spent).
 */
export const USAGE_CATEGORIES = ['transactional_emails', 'marketing_emails', 'received_emails', 'ai_credits'] as const;
export type UsageCategory = (typeof USAGE_CATEGORIES)[number];

export type UsageEntry = {
  teamId: string;
  category: UsageCategory;
  /** How many (one email, a broadcast chunk's emails, one credit); positive. */
  quantity: number;
  /** When it was used: its month (UTC) is the record's period. */
  at: Date;
  /** What the record counts (an email id, a broadcast id, an AI request), for an audit. */
  sourceId?: string | null;
};

export type UsageTotals = Record<UsageCategory, number>;
