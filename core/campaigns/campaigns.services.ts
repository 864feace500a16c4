import type { Knex } from 'knex';
import type { UnitsOfWork } from '../../db/unit-of-work.js';
import type { Clock } from '../../lib/clock.js';
import type { Config } from '../../lib/config/config.schema.js';
import type { AudienceServices } from '../audience/audience.services.js';
import type { ContactLinks } from '../audience/preferences/contact-links.js';
import type { PreferenceService } from '../audience/preferences/preference.service.js';
import type { EventLog } from '../events/log/event-log.js';
import type { PlatformSettings } from '../platform/settings/platform-settings.js';
import type { TeamService } from '../platform/teams/team.service.js';
import type { SendingServices } from '../sending/sending.services.js';
import { BroadcastFanOut } from './broadcasts/broadcast-fanout.js';
import { BroadcastGate } from './broadcasts/broadcast-gate.js';
import { BroadcastPreviewer } from './broadcasts/broadcast-preview.js';
import { BroadcastResults } from './broadcasts/broadcast-results.js';
import { BroadcastService } from './broadcasts/broadcast.service.js';
import { MarketingAllowance } from './broadcasts/marketing-allowance.js';

export type CampaignInfrastructure = {
  knex: Knex;
  clock: Clock;
  config: Config;
  units: UnitsOfWork;
  settings: PlatformSettings;
  teams: TeamService;
  audience: AudienceServices;
  sending: SendingServices;
  contactLinks: ContactLinks;
  preferences: PreferenceService;
  eventLog: EventLog;
};

/** The campaigns group: broadcasts, their gate, the marketing meter and the fan-out. */
export function createCampaignServices(infra: CampaignInfrastructure) {
  const { knex, clock, config, audience, sending } = infra;
  // Each recipient's results follow its email's events and the broadcast's unsubscribe links.
  const results = new BroadcastResults({ clock });
  infra.eventLog.follow(results);
  infra.preferences.onBroadcastUnsubscribe((trx, subject) => results.unsubscribed(trx, subject));
  const liveSegment = (teamId: string, id: string) => audience.segments.isLive(teamId, id);
  const marketingEnabled = () => infra.settings.marketingEnabled(config.marketing.enabled);
  const gate = new BroadcastGate({
    verifiedDomain: (teamId, name) => sending.domains.findVerifiedByName(teamId, name),
    liveSegment,
    marketingEnabled,
  });
  const allowance = new MarketingAllowance({
    knex,
    clock,
    subscribedMembers: async (teamId, segmentId) => (await audience.segments.metrics(teamId, segmentId)).subscribed,
  });
  const returnPathHost = async (teamId: string, name: string) => {
    const domain = await sending.domains.findVerifiedByName(teamId, name);
    return domain ? `${domain.customReturnPath}.${domain.name}` : null;
  };
  const broadcasts = new BroadcastService({
    knex,
    clock,
    gate,
    templates: sending.templates,
    liveSegment,
    liveTopic: (teamId, id) =>
      audience.topics.get(teamId, id).then(
        () => true,
        () => false,
      ),
    assertAllowance: (team, broadcast) => allowance.assertRoom(team, broadcast),
  });
  return {
    marketingEnabled,
    marketingAllowance: allowance,
    broadcasts,
    // A broadcast rendered for one contact with the fan-out's code (the editor's preview).
    broadcastPreviewer: new BroadcastPreviewer({
      knex,
      broadcasts,
      contacts: audience.contacts,
      properties: audience.contactProperties,
      links: infra.contactLinks,
      returnPathHost,
    }),
    broadcastFanOut: new BroadcastFanOut({
      knex,
      clock,
      units: infra.units,
      team: (teamId) => infra.teams.get(teamId),
      segments: audience.segments,
      properties: audience.contactProperties,
      topics: audience.topics,
      suppressions: sending.suppressions,
      acceptance: sending.emailAcceptance,
      links: infra.contactLinks,
      returnPathHost,
      pageSize: config.marketing.fanOutPageSize,
      pagesInFlight: config.marketing.fanOutPagesInFlight,
      marketingEnabled,
    }),
  };
}

export type CampaignServices = ReturnType<typeof createCampaignServices>;
