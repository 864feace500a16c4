import { NEXT_UNLOCK, REGIONS, TIER_NAMES, type Region, type Team } from '../teams/team.types.js';

export type SendingStatus = {
  sandbox_regions: Region[];
  tier: number;
  tier_name: (typeof TIER_NAMES)[number];
  next_unlock: (typeof NEXT_UNLOCK)[number];
};

/**
 * The team's `sending` object. A region leaves the sandbox when the team has a verified domain
 * there; from tier 2 (paid) no region is sandboxed.
 */
export function sendingStatus(team: Team, verifiedRegions: Iterable<Region>): SendingStatus {
  const tier = Math.min(Math.max(team.sendingTier, 0), TIER_NAMES.length - 1);
  const verified = new Set(verifiedRegions);
  return {
    sandbox_regions: tier >= 2 ? [] : REGIONS.filter((region) => !verified.has(region)),
    tier,
    tier_name: TIER_NAMES[tier]!,
    next_unlock: NEXT_UNLOCK[tier] ?? null,
  };
}
