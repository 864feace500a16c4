import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { upsertAdding } from '../../../db/dialect.js';
import type { Clock } from '../../../lib/clock.js';
import type { EventFanOut } from '../../events/log/event-log.js';
import type { LoggedEvent } from '../../events/log/event.types.js';

/** Columns of a recipient row a first event of its type stamps (the first time wins). */
const STAMPS: Partial<Record<string, string>> = {
  'email.sent': 'sent_at',
  'email.delivered': 'delivered_at',
  'email.complained': 'complained_at',
  'email.suppressed': 'suppressed_at',
};

const BOUNCE_TYPES = new Set(['permanent', 'transient', 'undetermined']);

/**
 * A link's id: the URL's SHA-256 shaped as a UUID (version 8, "custom"), so clicked-links rows
 * page by the same cursor rules as every list and one URL always has one id.
 */
export function linkIdOf(url: string): string {
  const bytes = createHash('sha256').update(url).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Keeps each broadcast recipient's results on its row as its email's events are recorded, in
 * the same transaction (it follows the event log): sent, delivered, bounce type, complaint,
 * suppression, opens and clicks, and per-link click counts. Events of transactional mail (no
 * `broadcast_id` in their data) cost nothing here.
 */
export class BroadcastResults implements EventFanOut {
  constructor(private readonly deps: { clock: Clock }) {}

  /** A link of the broadcast's email unsubscribed the contact: the first such moment is kept. */
  async unsubscribed(trx: Knex, subject: { broadcastId: string; contactId: string }): Promise<void> {
    await trx('broadcast_recipients')
      .where({ broadcast_id: subject.broadcastId, contact_id: subject.contactId })
      .whereNull('unsubscribed_at')
      .update({ unsubscribed_at: this.deps.clock.now() });
  }

  async enqueueMany(trx: Knex, events: LoggedEvent[]): Promise<void> {
    const ours = events.filter((event) => typeof event.data.broadcast_id === 'string');
    if (ours.length === 0) return;
    const stamps = new Map<string, { at: Date; emailIds: string[] }>();
    const opens = new Map<string, number>();
    const clicks: Array<{ emailId: string; broadcastId: string; url: string }> = [];
    for (const event of ours) {
      const emailId = event.data.email_id as string;
      const column = STAMPS[event.type];
      if (column) {
        const entry = stamps.get(column) ?? { at: event.createdAt, emailIds: [] };
        entry.emailIds.push(emailId);
        stamps.set(column, entry);
      } else if (event.type === 'email.bounced') {
        const type = String((event.data.bounce as { type?: unknown } | undefined)?.type ?? '').toLowerCase();
        await trx('broadcast_recipients')
          .where({ email_id: emailId })
          .update({ bounce_type: BOUNCE_TYPES.has(type) ? type : 'undetermined' });
      } else if (event.type === 'email.opened') {
        opens.set(emailId, (opens.get(emailId) ?? 0) + 1);
      } else if (event.type === 'email.clicked') {
        const url = (event.data.click as { link?: unknown } | undefined)?.link;
        if (typeof url === 'string') clicks.push({ emailId, broadcastId: event.data.broadcast_id as string, url });
      }
    }
    for (const [column, { at, emailIds }] of stamps)
      await trx('broadcast_recipients')
        .whereIn('email_id', emailIds)
        .whereNull(column)
        .update({ [column]: at });
    for (const [emailId, count] of opens)
      await trx('broadcast_recipients').where({ email_id: emailId }).increment('open_count', count);
    if (clicks.length > 0) await this.recordClicks(trx, clicks);
  }

  private async recordClicks(trx: Knex, clicks: Array<{ emailId: string; broadcastId: string; url: string }>) {
    const contacts = new Map(
      (
        (await trx('broadcast_recipients')
          .whereIn('email_id', [...new Set(clicks.map((c) => c.emailId))])
          .select('email_id', 'contact_id')) as Array<{ email_id: string; contact_id: string }>
      ).map((row) => [row.email_id, row.contact_id]),
    );
    const links = new Map<string, { broadcast_id: string; link_id: string; url: string }>();
    const perRecipient = new Map<
      string,
      { broadcast_id: string; link_id: string; contact_id: string; clicks: number }
    >();
    for (const click of clicks) {
      const contactId = contacts.get(click.emailId);
      if (!contactId) continue;
      const linkId = linkIdOf(click.url);
      links.set(`${click.broadcastId}:${linkId}`, { broadcast_id: click.broadcastId, link_id: linkId, url: click.url });
      const key = `${click.broadcastId}:${linkId}:${contactId}`;
      const row = perRecipient.get(key) ?? {
        broadcast_id: click.broadcastId,
        link_id: linkId,
        contact_id: contactId,
        clicks: 0,
      };
      row.clicks += 1;
      perRecipient.set(key, row);
      await trx('broadcast_recipients').where({ email_id: click.emailId }).increment('click_count', 1);
    }
    if (links.size === 0) return;
    await trx('broadcast_links')
      .insert([...links.values()])
      .onConflict(['broadcast_id', 'link_id'])
      .ignore();
    await upsertAdding(
      trx,
      'broadcast_link_clicks',
      [...perRecipient.values()],
      ['broadcast_id', 'link_id', 'contact_id'],
      ['clicks'],
    );
  }
}
