import type { Knex } from 'knex';

/** Contacts added to segments by hand (filter matches are computed, never stored). */
export class SegmentMemberRepository {
  constructor(private readonly knex: Knex) {}

  /** The ids among `ids` naming live segments of the team. */
  async liveSegmentIds(teamId: string, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const found = (await this.knex('segments')
      .where({ team_id: teamId })
      .whereNull('deleted_at')
      .whereIn('id', ids)
      .pluck('id')) as string[];
    return new Set(found);
  }

  /** Adds the contact to each segment it is not in yet. */
  async add(teamId: string, contactId: string, segmentIds: string[], at: Date): Promise<void> {
    if (segmentIds.length === 0) return;
    const present = new Set(
      (await this.knex('segment_members')
        .where({ contact_id: contactId })
        .whereIn('segment_id', segmentIds)
        .pluck('segment_id')) as string[],
    );
    const rows = [...new Set(segmentIds)]
      .filter((id) => !present.has(id))
      .map((segment_id) => ({ segment_id, contact_id: contactId, team_id: teamId, created_at: at }));
    if (rows.length > 0) await this.knex('segment_members').insert(rows);
  }

  async remove(contactId: string, segmentId: string): Promise<boolean> {
    return (await this.knex('segment_members').where({ contact_id: contactId, segment_id: segmentId }).delete()) > 0;
  }
}
