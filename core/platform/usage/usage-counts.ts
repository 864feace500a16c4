import type { Knex } from 'knex';
import { ContactRepository } from '../../audience/contacts/contact.repository.js';
import { AutomationRunRepository } from '../../automations/runs/automation-run.repository.js';
import { DomainRepository } from '../../sending/domains/domain.repository.js';

/** What GET /usage counts besides emails and the ledger's categories, per team. */
export type UsageCounts = {
  contacts(teamId: string): Promise<number>;
  segments(teamId: string): Promise<number>;
  broadcasts(teamId: string): Promise<number>;
  domains(teamId: string): Promise<number>;
  automationRunsSince(teamId: string, since: Date): Promise<number>;
};

const countOf = async (query: Knex.QueryBuilder): Promise<number> => {
  const [row] = (await query.count({ n: '*' })) as Array<{ n: number | string }>;
  return Number(row?.n ?? 0);
};

/**
 * The counts, read with the same queries the limits use where a limit exists: contacts and
 * domains with their repositories' countForTeam (the contact limit and the domain limit count
 * with them), automation runs with the count the run limit reads at enrolment. Segments and
 * broadcasts have no limit; they are the team's live (not deleted) ones, as their lists show.
 */
export function usageCounts(knex: Knex): UsageCounts {
  return {
    contacts: (teamId) => new ContactRepository(knex).countForTeam(teamId),
    domains: (teamId) => new DomainRepository(knex).countForTeam(teamId),
    automationRunsSince: (teamId, since) => new AutomationRunRepository(knex).countStartedSince(teamId, since),
    segments: (teamId) => countOf(knex('segments').where({ team_id: teamId }).whereNull('deleted_at')),
    broadcasts: (teamId) => countOf(knex('broadcasts').where({ team_id: teamId }).whereNull('deleted_at')),
  };
}
