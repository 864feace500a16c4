import { DataTable } from '../../ui/table';
import { Card, DescriptionList } from '../../ui/page';
import { Time } from '../../ui/time';
import { StatusBadge } from '../../ui/badge';
import type { QueueSummary } from './admin-types';
import { CountBars } from './count-bars';
import { age, count } from './format';

/** Waiting states first: they are what an operator acts on; finished ones follow. */
const STATE_ORDER = ['queued', 'deferred', 'held', 'sending', 'delivered', 'bounced', 'failed'];
const rank = (state: string) => (STATE_ORDER.includes(state) ? STATE_ORDER.indexOf(state) : STATE_ORDER.length);

/** How deep the queue is: deliveries by state and by lane, and how overdue the oldest waiting one is. */
export function QueueDepthCard({ summary }: { summary: QueueSummary }) {
  const states = Object.entries(summary.states).sort(([a], [b]) => rank(a) - rank(b));
  const lanes = [...summary.lanes].sort((a, b) => a.lane.localeCompare(b.lane) || rank(a.state) - rank(b.state));
  return (
    <Card title="Depth" id="queue-depth">
      <DescriptionList
        items={[
          [
            'Oldest due',
            summary.oldest_due_at ? (
              <span>
                {age(summary.oldest_due_seconds)} overdue (due <Time value={summary.oldest_due_at} />)
              </span>
            ) : (
              'Nothing waiting'
            ),
          ],
          ['Updated', <Time key="updated" value={summary.generated_at} mode="absolute" />],
        ]}
      />
      <div className="admin-columns">
        <div>
          <h3 className="admin-subtitle">By state</h3>
          <CountBars
            caption="Deliveries by state"
            labelHeader="State"
            rows={states.map(([state, value]) => ({
              key: state,
              label: <StatusBadge status={state} />,
              count: value,
            }))}
            empty={<p className="muted">No deliveries.</p>}
          />
        </div>
        <div>
          <h3 className="admin-subtitle">By lane</h3>
          <DataTable
            caption="Deliveries by lane and state"
            rowKey={(row) => `${row.lane}/${row.state}`}
            rows={lanes}
            empty={<p className="muted">No deliveries in any lane.</p>}
            columns={[
              { header: 'Lane', cell: (row) => row.lane },
              { header: 'State', cell: (row) => <StatusBadge status={row.state} /> },
              { header: 'Messages', cell: (row) => count(row.count), className: 'num' },
            ]}
          />
        </div>
      </div>
    </Card>
  );
}
