import type { Knex } from 'knex';
import type { Clock } from '../../lib/clock.js';
import { NotFoundError } from '../../lib/errors.js';
import type { PageQuery } from '../shared/pagination/list-query.js';
import { OAuthGrantRepository, type GrantWithClient } from './oauth-grant.repository.js';

/** A team's view of the applications it approved: list, and revoke (every token goes with it). */
export class OAuthGrantService {
  private readonly grants: OAuthGrantRepository;

  constructor(private readonly deps: { knex: Knex; clock: Clock }) {
    this.grants = new OAuthGrantRepository(deps.knex);
  }

  async list(teamId: string, page: PageQuery): Promise<{ grants: GrantWithClient[]; hasMore: boolean }> {
    return this.grants.listLive(teamId, page);
  }

  /**
   * Another team's grant, an unknown one and an already revoked one are the same 404. Answers
   * when it ended (the revoke answer's revoked_at).
   */
  async revoke(teamId: string, grantId: string): Promise<{ id: string; revokedAt: Date }> {
    const grant = await this.grants.findLiveInTeam(teamId, grantId);
    if (!grant) throw new NotFoundError('OAuth grant not found');
    const revokedAt = this.deps.clock.now();
    await this.grants.revoke({ id: grant.id }, revokedAt);
    return { id: grant.id, revokedAt };
  }
}
