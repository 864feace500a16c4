import { utcDayStart, utcMonthStart } from '../../shared/scheduling/quota-periods.js';

/** Emails a team created since a moment, per meter: the quotas' own count (EmailRepository.countSince). */
export type CountEmails = (teamId: string, since: Date, meter: 'transactional' | 'marketing') => Promise<number>;

/** What the email quotas compare against, at one moment. */
export type EmailCounts = {
  /** 00:00 UTC today: the daily quota's period starts here. */
  dayStart: Date;
  /** The first of the month, 00:00 UTC: the monthly quotas' period starts here. */
  monthStart: Date;
  /** Transactional emails since dayStart: what the daily quota counts. */
  transactionalToday: number;
  /** Transactional emails since monthStart: what the monthly quota (free plan) counts. */
  transactionalMonth: number;
  /** Broadcast emails since monthStart: what the marketing meter counts. */
  marketingMonth: number;
};

/**
 * The email counts GET /billing and GET /usage report, read with the quotas' counter and the
 * quotas' periods (quota-periods.ts), so neither can report something the quotas do not see.
 * Both routes call this one function.
 */
export async function emailCounts(count: CountEmails, teamId: string, now: Date): Promise<EmailCounts> {
  const dayStart = utcDayStart(now);
  const monthStart = utcMonthStart(now);
  const [transactionalToday, transactionalMonth, marketingMonth] = await Promise.all([
    count(teamId, dayStart, 'transactional'),
    count(teamId, monthStart, 'transactional'),
    count(teamId, monthStart, 'marketing'),
  ]);
  return { dayStart, monthStart, transactionalToday, transactionalMonth, marketingMonth };
}
