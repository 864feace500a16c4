import { Card, EmptyState } from '../../ui/page';
import type { QueueSummary } from './admin-types';
import { CountBars } from './count-bars';
import { age, count } from './format';

/** Summary rows grouped by one key, their counts added up and their states listed. */
function byKey<T extends { state: string; count: number }>(rows: T[], key: (row: T) => string) {
  const groups = new Map<string, { total: number; states: Map<string, number>; rows: T[] }>();
  for (const row of rows) {
    const group = groups.get(key(row)) ?? { total: 0, states: new Map<string, number>(), rows: [] as T[] };
    group.total += row.count;
    group.states.set(row.state, (group.states.get(row.state) ?? 0) + row.count);
    group.rows.push(row);
    groups.set(key(row), group);
  }
  return [...groups.entries()].sort(([, a], [, b]) => b.total - a.total);
}

const statesText = (states: Map<string, number>) =>
  [...states.entries()].map(([state, value]) => `${count(value)} ${state}`).join(', ');

/** Waiting messages by destination domain (with the oldest's age): where mail piles up. */
export function DestinationsCard({ summary }: { summary: QueueSummary }) {
  const groups = byKey(summary.destinations, (row) => row.domain);
  return (
    <Card title="By destination domain" id="queue-destinations">
      <CountBars
        caption="Waiting messages by destination domain"
        labelHeader="Domain"
        detailHeader="States, oldest"
        rows={groups.map(([domain, group]) => ({
          key: domain,
          label: domain,
          count: group.total,
          detail: `${statesText(group.states)}; oldest ${age(Math.max(...group.rows.map((row) => row.oldest_seconds)))}`,
        }))}
        empty={<EmptyState title="No message is waiting for any destination" />}
      />
    </Card>
  );
}

/** Waiting messages by the egress address chosen for them (none yet: not tried). */
export function EgressCard({ summary }: { summary: QueueSummary }) {
  const groups = byKey(summary.egress, (row) => row.address ?? '');
  return (
    <Card title="By egress IP" id="queue-egress">
      <CountBars
        caption="Waiting messages by egress IP"
        labelHeader="Address"
        detailHeader="States"
        rows={groups.map(([address, group]) => ({
          key: address || 'none',
          label: address ? <code>{address}</code> : <span className="muted">None chosen yet</span>,
          count: group.total,
          detail: statesText(group.states),
        }))}
        empty={<EmptyState title="No message is waiting on any address" />}
      />
    </Card>
  );
}
