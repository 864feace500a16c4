import type { Knex } from 'knex';
import { paginateNewestFirst, type PageQuery } from '../../shared/pagination/list-query.js';
import type { RecipientsQuery } from './broadcast.schemas.js';

export type BounceType = 'permanent' | 'transient' | 'undetermined';

/** One recipient row of GET /broadcasts/{id}/recipients, before shaping for a type. */
export type RecipientResult = {
  contactId: string;
  /** False once the contact was deleted (the row stays: past broadcasts keep their recipients). */
  contactExists: boolean;
  email: string;
  openCount: number;
  clickCount: number;
  bounceType: BounceType | null;
  clickedLinks: Array<{ url: string; clicks: number }>;
};

export type LinkResult = { linkId: string; url: string; clicks: number; uniqueClicks: number };

type RecipientDbRow = {
  contact_id: string;
  email: string;
  open_count: number | string;
  click_count: number | string;
  bounce_type: BounceType | null;
  live_contact: string | null;
};

/** What each recipient type selects among a broadcast's recipient rows. */
const TYPE_FILTERS: Record<RecipientsQuery['type'], (query: Knex.QueryBuilder) => void> = {
  sent: (q) => q.whereNotNull('r.sent_at'),
  delivered: (q) => q.whereNotNull('r.delivered_at'),
  opened: (q) => q.where('r.open_count', '>', 0),
  clicked: (q) => q.where('r.click_count', '>', 0),
  bounced: (q) => q.whereNotNull('r.bounce_type'),
  complained: (q) => q.whereNotNull('r.complained_at'),
  unsubscribed: (q) => q.whereNotNull('r.unsubscribed_at'),
  suppressed: (q) => q.whereNotNull('r.suppressed_at'),
};

/**
 * Reads of a broadcast's results: recipients by what happened to them, newest contact first by
 * contact id (the row id and cursor), and its links with total and unique clicks.
 */
export class BroadcastResultsRepository {
  constructor(private readonly knex: Knex) {}

  async recipients(
    broadcastId: string,
    query: RecipientsQuery,
  ): Promise<{ rows: RecipientResult[]; hasMore: boolean }> {
    const select = this.knex('broadcast_recipients as r')
      .leftJoin('contacts as c', 'c.id', 'r.contact_id')
      .where('r.broadcast_id', broadcastId)
      .select('r.contact_id', 'r.email', 'r.open_count', 'r.click_count', 'r.bounce_type', 'c.id as live_contact');
    TYPE_FILTERS[query.type](select);
    if (query.type === 'bounced' && query.bounce_type) select.where('r.bounce_type', query.bounce_type);
    if (query.email) select.whereRaw('LOWER(r.email) = ?', [query.email.trim().toLowerCase()]);
    const { rows, hasMore } = await paginateNewestFirst<RecipientDbRow>(select, query, 'r.contact_id');
    const links =
      query.type === 'clicked'
        ? await this.linksOf(
            broadcastId,
            rows.map((r) => r.contact_id),
          )
        : new Map();
    return {
      hasMore,
      rows: rows.map((row) => ({
        contactId: row.contact_id,
        contactExists: row.live_contact !== null,
        email: row.email,
        openCount: Number(row.open_count),
        clickCount: Number(row.click_count),
        bounceType: row.bounce_type,
        clickedLinks: links.get(row.contact_id) ?? [],
      })),
    };
  }

  async links(broadcastId: string, page: PageQuery): Promise<{ rows: LinkResult[]; hasMore: boolean }> {
    const select = this.knex('broadcast_link_clicks as k')
      .join('broadcast_links as l', (on) => on.on('l.broadcast_id', 'k.broadcast_id').andOn('l.link_id', 'k.link_id'))
      .where('k.broadcast_id', broadcastId)
      .groupBy('k.link_id')
      .select('k.link_id')
      .max({ url: 'l.url' })
      .sum({ clicks: 'k.clicks' })
      .count({ unique_clicks: '*' });
    const { rows, hasMore } = await paginateNewestFirst<{
      link_id: string;
      url: string;
      clicks: number | string;
      unique_clicks: number | string;
    }>(select, page, 'k.link_id');
    return {
      hasMore,
      rows: rows.map((row) => ({
        linkId: row.link_id,
        url: row.url,
        clicks: Number(row.clicks),
        uniqueClicks: Number(row.unique_clicks),
      })),
    };
  }

  /** Each contact's clicked links in this broadcast, most clicked first. */
  private async linksOf(broadcastId: string, contactIds: string[]) {
    const byContact = new Map<string, Array<{ url: string; clicks: number }>>();
    if (contactIds.length === 0) return byContact;
    const rows = (await this.knex('broadcast_link_clicks as k')
      .join('broadcast_links as l', (on) => on.on('l.broadcast_id', 'k.broadcast_id').andOn('l.link_id', 'k.link_id'))
      .where('k.broadcast_id', broadcastId)
      .whereIn('k.contact_id', contactIds)
      .orderBy([{ column: 'k.clicks', order: 'desc' }, 'l.url'])
      .select('k.contact_id', 'l.url', 'k.clicks')) as Array<{
      contact_id: string;
      url: string;
      clicks: number | string;
    }>;
    for (const row of rows)
      byContact.set(row.contact_id, [
        ...(byContact.get(row.contact_id) ?? []),
        { url: row.url, clicks: Number(row.clicks) },
      ]);
    return byContact;
  }
}
