export const SUPPRESSION_ORIGINS = ['bounce', 'complaint', 'manual', 'unsubscribe'] as const;
export type SuppressionOrigin = (typeof SUPPRESSION_ORIGINS)[number];

export type Suppression = {
  id: string;
  teamId: string;
  email: string;
  origin: SuppressionOrigin;
  /** The email that caused it, when one did. */
  sourceId: string | null;
  createdAt: Date;
};
