import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { readTimestamp } from '../../db/dialect.js';
import type { Clock } from '../../lib/clock.js';
import { SSO_FLOW_LIFETIME_MS, type SsoFlow, type SsoPurpose } from './sso.types.js';

type FlowRow = {
  state_hash: string;
  team_id: string;
  purpose: string;
  nonce: string;
  code_verifier: string;
  user_id: string | null;
  expires_at: unknown;
  created_at: unknown;
};

const hashState = (state: string) => createHash('sha256').update(state).digest('hex');

/**
 * Round trips in progress, in the database so any API node can answer the callback. The
 * browser holds the `state`; the table only its SHA-256, so a read of the table cannot finish
 * someone's sign-in. `take` deletes the row it returns: a replayed state finds nothing.
 */
export class SsoFlowStore {
  constructor(private readonly deps: { knex: Knex; clock: Clock }) {}

  async save(
    state: string,
    flow: { teamId: string; purpose: SsoPurpose; nonce: string; codeVerifier: string; userId: string | null },
  ): Promise<void> {
    const now = this.deps.clock.now();
    await this.deps.knex('sso_flows').insert({
      state_hash: hashState(state),
      team_id: flow.teamId,
      purpose: flow.purpose,
      nonce: flow.nonce,
      code_verifier: flow.codeVerifier,
      user_id: flow.userId,
      expires_at: new Date(now.getTime() + SSO_FLOW_LIFETIME_MS),
      created_at: now,
    });
  }

  /** The live flow of a state, used up by this call; undefined when unknown, used or expired. */
  async take(state: string): Promise<SsoFlow | undefined> {
    const { knex, clock } = this.deps;
    const stateHash = hashState(state);
    const row = (await knex('sso_flows').where({ state_hash: stateHash }).first()) as FlowRow | undefined;
    if (!row) return undefined;
    // Two callbacks racing with one state: only the one whose DELETE removed the row goes on.
    if ((await knex('sso_flows').where({ state_hash: stateHash }).delete()) !== 1) return undefined;
    const flow: SsoFlow = {
      stateHash,
      teamId: row.team_id,
      purpose: row.purpose as SsoPurpose,
      nonce: row.nonce,
      codeVerifier: row.code_verifier,
      userId: row.user_id,
      expiresAt: readTimestamp(row.expires_at),
      createdAt: readTimestamp(row.created_at),
    };
    return flow.expiresAt.getTime() > clock.now().getTime() ? flow : undefined;
  }

  /** Retention: flows that expired (abandoned at the provider). */
  async purgeExpired(): Promise<number> {
    return this.deps.knex('sso_flows').where('expires_at', '<', this.deps.clock.now()).delete();
  }
}
