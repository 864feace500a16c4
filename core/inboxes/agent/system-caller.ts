import type { Team } from '../../platform/teams/team.types.js';

/**
 * Who the agent sends as: the team itself, with no API key, as broadcasts and automations send
 * (EmailAcceptance's `{ team, apiKey: null }`). Only the wiring turns it into an acceptance call
 * (acceptForAutomation); no route ever sees one, so no permission or scope check is skipped.
 */
export type TeamSystemCaller = { team: Team; apiKey: null; scopes: null };

export const teamSystemCaller = (team: Team): TeamSystemCaller => ({ team, apiKey: null, scopes: null });
