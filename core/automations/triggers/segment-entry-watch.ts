import type { Knex } from 'knex';
import { isUniqueViolation } from '../../../db/errors.js';
import type { Clock } from '../../../lib/clock.js';
import type { SegmentService } from '../../audience/segments/segment.service.js';
import { EventOccurrenceRepository } from '../../custom-events/event-occurrence.repository.js';
import type { PlatformOccurrences } from './platform-occurrences.js';
import type { PlatformTriggerIndex } from './platform-trigger-index.js';

const ENTRIES = 'automation_segment_entries';
const WATCHES = 'automation_segment_watches';
/** Contacts entered per transaction. */
const BATCH = 500;

export type SegmentEntryWatchDeps = {
  knex: Knex;
  clock: Clock;
  index: PlatformTriggerIndex;
  occurrences: Pick<PlatformOccurrences, 'occurrence'>;
  segments: Pick<SegmentService, 'membership' | 'findForSending' | 'isLive'>;
};

/**
 * svc:segment.entered. A segment is a filter (plus members added by hand) evaluated when asked,
 * so entering it is found by comparing: for every segment an enabled automation's trigger
 * names, the members not yet in automation_segment_entries have entered (one occurrence each,
 * committed with their entry rows), and entries whose contact left are removed (entering again
 * fires again). The first look at a segment records its members without firing: an automation
 * enabled today starts with the contacts who join from now on.
 */
export class SegmentEntryWatch {
  constructor(private readonly deps: SegmentEntryWatchDeps) {}

  /** One pass over every watched segment; returns how many contacts entered one. */
  async check(): Promise<{ segments: number; entered: number }> {
    const { knex } = this.deps;
    const wanted = new Map<string, string>();
    for (const [teamId, bindings] of await this.deps.index.all(knex))
      for (const b of bindings) if (b.event === 'svc:segment.entered' && b.subjectId) wanted.set(b.subjectId, teamId);
    const watches = (await knex(WATCHES).select('segment_id')) as Array<{ segment_id: string }>;
    for (const { segment_id } of watches) if (!wanted.has(segment_id)) await this.unwatch(segment_id);
    let entered = 0;
    for (const [segmentId, teamId] of wanted) entered += await this.checkSegment(teamId, segmentId);
    return { segments: wanted.size, entered };
  }

  private async unwatch(segmentId: string): Promise<void> {
    await this.deps.knex.transaction(async (trx) => {
      await trx(ENTRIES).where({ segment_id: segmentId }).delete();
      await trx(WATCHES).where({ segment_id: segmentId }).delete();
    });
  }

  private async checkSegment(teamId: string, segmentId: string): Promise<number> {
    const { knex, clock } = this.deps;
    const segment = (await this.deps.segments.isLive(teamId, segmentId))
      ? await this.deps.segments.findForSending(teamId, segmentId)
      : undefined;
    if (!segment) {
      await this.unwatch(segmentId);
      return 0;
    }
    const narrow = await this.deps.segments.membership(segment);
    const watch = await knex(WATCHES).where({ segment_id: segmentId }).first('segment_id');
    const baseline = !watch;
    let entered = 0;
    for (;;) {
      const query = knex('contacts')
        .where('contacts.team_id', teamId)
        .whereNotExists(
          knex(`${ENTRIES} as e`).where('e.segment_id', segmentId).whereRaw('?? = ??', ['e.contact_id', 'contacts.id']),
        )
        .orderBy('contacts.id')
        .limit(BATCH);
      narrow(query);
      const ids = (await query.pluck('contacts.id')) as string[];
      if (ids.length === 0) break;
      const now = clock.now();
      try {
        await knex.transaction(async (trx) => {
          await trx(ENTRIES).insert(
            ids.map((contactId) => ({
              segment_id: segmentId,
              contact_id: contactId,
              team_id: teamId,
              entered_at: now,
            })),
          );
          if (!baseline)
            await new EventOccurrenceRepository(trx).insertMany(
              ids.map((contactId) =>
                this.deps.occurrences.occurrence(teamId, 'svc:segment.entered', contactId, { segment_id: segmentId }),
              ),
            );
        });
      } catch (err) {
        // Another scheduler node entered these first: its pass fired them.
        if (!isUniqueViolation(err)) throw err;
        continue;
      }
      if (!baseline) entered += ids.length;
      if (ids.length < BATCH) break;
    }
    // Who left: their entry goes, so coming back is entering again.
    await knex(ENTRIES)
      .where('segment_id', segmentId)
      .whereNotExists(function (this: Knex.QueryBuilder) {
        this.from('contacts').whereRaw('?? = ??', ['contacts.id', `${ENTRIES}.contact_id`]);
        narrow(this);
      })
      .delete();
    const now = clock.now();
    if (baseline)
      await knex(WATCHES)
        .insert({ segment_id: segmentId, team_id: teamId, started_at: now, checked_at: now })
        .onConflict('segment_id')
        .ignore();
    else await knex(WATCHES).where({ segment_id: segmentId }).update({ checked_at: now });
    return entered;
  }
}
