import { NEXT_UNLOCK, REGIONS, TIER_NAMES, type Region, type Team } from '../../platform/teams/team.types.js';

export type SendingStatus = {
  sandbox_regions: Region[];
  tier: number;
  tier_name: (typeof TIER_NAMES)[number];
  next_unlock: (typeof NEXT_UNLOCK)[number];
};

/**
 * The team's `sending` object. Tiers 0 (new) and 1 (verified: it has a verified domain, which
 * sending needs anyway) send in the sandbox in every region; from tier 2 (paid) none is.
 */
export function sendingStatus(team: Team): SendingStatus {
  const tier = Math.min(Math.max(team.sendingTier, 0), TIER_NAMES.length - 1);
  return {
    sandbox_regions: tier >= 2 ? [] : [...REGIONS],
    tier,
    tier_name: TIER_NAMES[tier]!,
    next_unlock: NEXT_UNLOCK[tier] ?? null,
  };
}
