import { NEXT_UNLOCK, TIER_NAMES, type Team } from './team.types.js';

/** The tier from which a team sends outside the sandbox (see sendingStatus). */
export const FIRST_UNSANDBOXED_TIER = 2;

/**
 * How a team still in the sending sandbox gets out of it, as a refusal says it: the team's
 * `next_unlock` in words. Without a payment provider (this appliance has none) the paid tier is
 * given by an operator, so the answer names the command that does it.
 */
export function sandboxWayOut(team: Pick<Team, 'id' | 'sendingTier'>): string {
  const tier = Math.min(Math.max(team.sendingTier, 0), TIER_NAMES.length - 1);
  const lift = `an operator lifts the sandbox with \`mailroom team set-tier --team ${team.id} --tier ${FIRST_UNSANDBOXED_TIER}\``;
  if (NEXT_UNLOCK[tier] === 'verify_domain') return `verify a domain at /domains, then ${lift}`;
  return `to send to anyone, ${lift}`;
}
