import { Badge, type Tone } from '../../ui/badge';
import type { CheckStatus } from './admin-types';

const TONE: Record<CheckStatus, Tone> = { ok: 'good', warn: 'warn', fail: 'bad' };

/** A doctor check's outcome in words and colour. */
export function CheckBadge({ status }: { status: CheckStatus }) {
  return <Badge tone={TONE[status] ?? 'neutral'}>{status}</Badge>;
}
