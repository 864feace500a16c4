import { Badge, StatusBadge } from '../../ui/badge';
import type { DeliveryStatus } from './webhook-types';

/** `attempting` means an attempt failed and a retry is scheduled: said as "retrying". */
export function DeliveryStatusBadge({ status }: { status: DeliveryStatus }) {
  if (status === 'attempting') return <Badge tone="warn">retrying</Badge>;
  return <StatusBadge status={status} />;
}
