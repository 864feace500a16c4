import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';
import { isUniqueViolation } from '../../../db/errors.js';
import { InvalidParameterError, NotFoundError } from '../../../lib/errors.js';
import { isUuid, newId } from '../../../lib/ids.js';
import type { EventLog } from '../../events/log/event-log.js';
import { isEmailAddress, normalizeEmail } from '../../shared/addresses/email-address.js';
import { CoalescedReads } from '../../../db/coalesced-reads.js';
import { pairKey, SuppressionRepository } from './suppression.repository.js';
import type { BatchRemoveInput, ListSuppressionsQuery } from './suppression.schemas.js';
import type { Suppression, SuppressionOrigin } from './suppression.types.js';
import { publicSuppression } from './suppression.shape.js';

/** Payload of suppression.* events: the suppression as the API shows it. */
const eventData = publicSuppression;

/**
 * The per-team suppression list. Addresses match case-insensitively; adding an address already
 * on the list leaves it as it is; every change records suppression.added / suppression.removed
 * in the same transaction.
 */
export class SuppressionService {
  private readonly repository: SuppressionRepository;

  /** Concurrent sends' look-ups share queries. */
  private readonly reads: CoalescedReads<{ teamId: string; emails: string[] }, Set<string>>;

  constructor(private readonly deps: { knex: Knex; clock: Clock; events: EventLog }) {
    this.repository = new SuppressionRepository(deps.knex);
    this.reads = new CoalescedReads((lookups) => suppressedOf(this.repository, lookups));
  }

  async add(
    teamId: string,
    email: string,
    origin: SuppressionOrigin = 'manual',
    sourceId: string | null = null,
  ): Promise<Suppression> {
    return (await this.addMany(teamId, [email], origin, sourceId))[0]!;
  }

  /**
   * Adds each address not yet suppressed; returns every address's suppression, in input order.
   * `within`: a caller's transaction to join (a savepoint inside it), so a hard bounce and the
   * suppression it causes commit together.
   */
  async addMany(
    teamId: string,
    emails: string[],
    origin: SuppressionOrigin = 'manual',
    sourceId: string | null = null,
    within: Knex = this.deps.knex,
  ): Promise<Suppression[]> {
    const unique = [...new Map(emails.map((email) => [normalizeEmail(email), email.trim()])).entries()];
    for (let attempt = 0; ; attempt++) {
      try {
        const byAddress = await within.transaction(async (trx) => {
          const repository = new SuppressionRepository(trx);
          const existing = new Map(
            (
              await repository.findByEmails(
                teamId,
                unique.map(([n]) => n),
              )
            ).map((s) => [normalizeEmail(s.email), s]),
          );
          for (const [normalized, email] of unique) {
            if (existing.has(normalized)) continue;
            const created: Suppression = {
              id: newId(),
              teamId,
              email,
              origin,
              sourceId,
              createdAt: this.deps.clock.now(),
            };
            await repository.insert(created);
            await this.deps.events.record(teamId, 'suppression.added', eventData(created), trx);
            existing.set(normalized, created);
          }
          return existing;
        });
        return emails.map((email) => byAddress.get(normalizeEmail(email))!);
      } catch (err) {
        // A concurrent request added one of the addresses first: read again, it is there now.
        if (!isUniqueViolation(err) || attempt >= 2) throw err;
      }
    }
  }

  /** By id or by address, the same 404 for unknown, malformed and another team's. */
  async get(teamId: string, idOrEmail: string): Promise<Suppression> {
    const value = idOrEmail.trim();
    const found = isUuid(value)
      ? await this.repository.findById(teamId, value.toLowerCase())
      : isEmailAddress(value)
        ? (await this.repository.findByEmails(teamId, [value]))[0]
        : undefined;
    if (!found) throw new NotFoundError('Suppression not found');
    return found;
  }

  async remove(teamId: string, idOrEmail: string): Promise<Suppression> {
    const suppression = await this.get(teamId, idOrEmail);
    await this.removeAll(teamId, [suppression]);
    return suppression;
  }

  /** emails or ids, never both or neither; entries not on the list are skipped. */
  async removeBatch(teamId: string, input: BatchRemoveInput): Promise<Suppression[]> {
    if ((input.emails === undefined) === (input.ids === undefined)) {
      throw new InvalidParameterError('Send either emails or ids, not both and not neither', {
        errors: [{ path: '', message: 'exactly one of emails and ids is required' }],
      });
    }
    const found = input.emails
      ? await this.repository.findByEmails(teamId, input.emails)
      : await this.repository.findByIds(
          teamId,
          input.ids!.map((id) => id.toLowerCase()),
        );
    await this.removeAll(teamId, found);
    return found;
  }

  async list(teamId: string, query: ListSuppressionsQuery) {
    return this.repository.list(teamId, query);
  }

  /** The normalized addresses among `emails` on the team's list (concurrent callers' reads are coalesced). */
  async suppressedAmong(teamId: string, emails: string[]): Promise<Set<string>> {
    if (emails.length === 0) return new Set();
    return this.reads.read({ teamId, emails: emails.map(normalizeEmail) });
  }

  /**
   * The same for several look-ups at once, in one query inside `trx`: the send path asks in the
   * transaction that commits a group of emails, so the group's check is one statement in a
   * round trip already paid for, and sees every suppression committed before it.
   */
  async suppressedWithin(trx: Knex, lookups: Array<{ teamId: string; emails: string[] }>): Promise<Array<Set<string>>> {
    return suppressedOf(
      new SuppressionRepository(trx),
      lookups.map(({ teamId, emails }) => ({ teamId, emails: emails.map(normalizeEmail) })),
    );
  }

  private async removeAll(teamId: string, suppressions: Suppression[]): Promise<void> {
    if (suppressions.length === 0) return;
    await this.deps.knex.transaction(async (trx) => {
      await new SuppressionRepository(trx).deleteIds(suppressions.map((s) => s.id));
      for (const s of suppressions) await this.deps.events.record(teamId, 'suppression.removed', eventData(s), trx);
    });
  }
}

/** One query for all look-ups (normalized addresses), answered per look-up. */
async function suppressedOf(
  repository: SuppressionRepository,
  lookups: Array<{ teamId: string; emails: string[] }>,
): Promise<Array<Set<string>>> {
  const found = await repository.suppressedPairs(
    lookups.flatMap(({ teamId, emails }) => emails.map((emailNormalized) => ({ teamId, emailNormalized }))),
  );
  return lookups.map(({ teamId, emails }) => new Set(emails.filter((email) => found.has(pairKey(teamId, email)))));
}
