import { Badge, type Tone } from '../../ui/badge';

const TONES: Record<string, Tone> = {
  running: 'info',
  waiting: 'info',
  pending: 'neutral',
  completed: 'good',
  skipped: 'neutral',
  failed: 'bad',
  cancelled: 'neutral',
};

/** A run's or a run step's status in words, coloured by its meaning. */
export function RunStatusBadge({ status }: { status: string }) {
  return <Badge tone={TONES[status] ?? 'neutral'}>{status}</Badge>;
}
