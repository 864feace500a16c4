import type { Knex } from 'knex';
import { MarketingQuotaExceededError } from '../../../lib/errors.js';
import type { Clock } from '../../../lib/clock.js';
import type { Team } from '../../platform/teams/team.types.js';
import { EmailRepository } from '../../sending/emails/email.repository.js';
import { utcMonthStart } from '../../shared/scheduling/quota-periods.js';
import type { Broadcast } from './broadcast.types.js';

/**
 * The marketing meter: broadcast emails this calendar month (UTC) against the plan's
 * marketing_emails_included, never the transactional quota. A send is refused (429
 * marketing_quota_exceeded) when the segment's subscribed members would not fit in what is
 * left; exclusions found during the fan-out (topic opt-outs, suppressions) only make it smaller.
 */
export class MarketingAllowance {
  private readonly emails: EmailRepository;

  constructor(
    private readonly deps: {
      knex: Knex;
      clock: Clock;
      subscribedMembers: (teamId: string, segmentId: string) => Promise<number>;
    },
  ) {
    this.emails = new EmailRepository(deps.knex);
  }

  async usedThisMonth(teamId: string): Promise<number> {
    const now = this.deps.clock.now();
    return this.emails.countSince(teamId, utcMonthStart(now), 'marketing');
  }

  async assertRoom(team: Team, broadcast: Broadcast): Promise<void> {
    const included = team.plan.limits.marketing_emails_included;
    const used = await this.usedThisMonth(team.id);
    const wanted = broadcast.segmentId ? await this.deps.subscribedMembers(team.id, broadcast.segmentId) : 0;
    if (used + wanted > included)
      throw new MarketingQuotaExceededError(
        `The marketing allowance of ${included} emails a month has ${Math.max(0, included - used)} left; this broadcast would send ${wanted}`,
      );
  }
}
