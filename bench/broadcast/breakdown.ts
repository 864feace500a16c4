import type { Knex } from 'knex';
import { readTimestamp } from '../../db/dialect.js';

/**
 * Where a transactional email's time went, from the appliance's own timestamps (wall clock, ms):
 * accepted (emails.created_at) -> handed over to the MTA (deliveries.created_at: the hand-over
 * creates the delivery) -> delivered (deliveries.updated_at of a delivered row: the settle).
 * Sorted, for the transactional emails accepted in [from, to).
 */
export async function transactionalBreakdown(
  knex: Knex,
  from: Date,
  to: Date,
): Promise<{ handOver: number[]; delivery: number[] }> {
  const rows = (await knex('emails as e')
    .join('deliveries as d', 'd.email_id', 'e.id')
    .whereNull('e.broadcast_id')
    .where('e.created_at', '>=', from)
    .where('e.created_at', '<', to)
    .where('d.state', 'delivered')
    .select('e.created_at as accepted', 'd.created_at as handed', 'd.updated_at as settled')) as Array<{
    accepted: unknown;
    handed: unknown;
    settled: unknown;
  }>;
  const ms = (a: unknown, b: unknown) => readTimestamp(b).getTime() - readTimestamp(a).getTime();
  return {
    handOver: rows.map((r) => ms(r.accepted, r.handed)).sort((a, b) => a - b),
    delivery: rows.map((r) => ms(r.handed, r.settled)).sort((a, b) => a - b),
  };
}
