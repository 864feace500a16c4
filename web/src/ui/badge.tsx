import type { ReactNode } from 'react';

export type Tone = 'neutral' | 'good' | 'warn' | 'bad' | 'info';

const TONES: Record<string, Tone> = {
  delivered: 'good',
  verified: 'good',
  pass: 'good',
  succeeded: 'good',
  success: 'good',
  enabled: 'good',
  active: 'good',
  accepted: 'good',
  published: 'good',
  sent: 'info',
  queued: 'info',
  scheduled: 'info',
  opened: 'info',
  clicked: 'info',
  pending: 'warn',
  not_started: 'warn',
  partially_verified: 'warn',
  delivery_delayed: 'warn',
  temporary_failure: 'warn',
  warn: 'warn',
  draft: 'neutral',
  bounced: 'bad',
  complained: 'bad',
  failed: 'bad',
  fail: 'bad',
  failure: 'bad',
  revoked: 'bad',
  disabled: 'bad',
  expired: 'bad',
  canceled: 'neutral',
  suppressed: 'bad',
};

/** A status in words with a colour that matches its meaning (the text alone carries it too). */
export function StatusBadge({ status, children }: { status: string; children?: ReactNode }) {
  return <span className={`badge badge-${TONES[status] ?? 'neutral'}`}>{children ?? status.replace(/_/g, ' ')}</span>;
}

export function Badge({ tone = 'neutral', children }: { tone?: Tone; children: ReactNode }) {
  return <span className={`badge badge-${tone}`}>{children}</span>;
}
