import type { Knex } from 'knex';
import { UnprocessableValidationError } from '../../../lib/errors.js';
import { ContactRepository } from './contact.repository.js';

/** How long a team's count is trusted, and how far below the limit it must be to skip a count. */
const TRUST_MS = 30_000;
const MARGIN_SHARE = 0.1;
const MIN_MARGIN = 1000;

/**
 * The plan's contact limit on create. Counting a team's contacts costs a scan of its index
 * entries (a million-contact team paid that on every create), so a recent count is kept per team
 * and moved by this process's creates; only a team near its limit, or with an old count, is
 * counted again. The margin covers what other processes created meanwhile.
 */
export class ContactLimit {
  private readonly counts = new Map<string, { n: number; at: number }>();

  async assertRoom(trx: Knex, teamId: string, limit: number): Promise<void> {
    const margin = Math.max(MIN_MARGIN, Math.floor(limit * MARGIN_SHARE));
    const known = this.counts.get(teamId);
    if (known && Date.now() - known.at < TRUST_MS && known.n + margin < limit) return;
    const n = await new ContactRepository(trx).countForTeam(teamId);
    this.counts.set(teamId, { n, at: Date.now() });
    if (n >= limit) throw new UnprocessableValidationError('Contact limit reached.');
  }

  /** A create committed here (or is about to): the kept count moves with it. */
  created(teamId: string): void {
    const known = this.counts.get(teamId);
    if (known) known.n += 1;
  }
}
