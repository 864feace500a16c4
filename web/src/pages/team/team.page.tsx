import { useSearchParam } from '../../router';
import { ErrorMessage } from '../../ui/error-message';
import { Loading, PageHeader } from '../../ui/page';
import { Tabs } from '../../ui/tabs';
import { AiAssistCard } from './ai-assist-card';
import { BrandKitCard } from './brand-kit-card';
import { ConnectedAppsTab } from './connected-apps-tab';
import { InvitationsTab } from './invitations-tab';
import { MembersTab } from './members-tab';
import { PlanTab } from './plan-tab';
import { SenderIdentityCard } from './sender-identity-card';
import { SsoSummaryCard } from './sso-summary-card';
import { TeamNameCard } from './team-name-card';
import { useTeam } from './team-query';

const TABS = ['general', 'members', 'invitations', 'apps', 'plan'] as const;

/**
 * The team: its name, sender identity, brand and the way to single sign-on (General), who is in it (Members), who is invited
 * (Invitations), which applications it approved (Connected apps) and its plan and usage (Plan).
 * The tab is in the URL (?tab=members) so a tab can be linked to.
 */
export default function TeamPage() {
  const [tabParam, setTab] = useSearchParam('tab');
  const tab = (TABS as readonly string[]).includes(tabParam) ? tabParam : 'general';
  const team = useTeam();
  return (
    <>
      <PageHeader title="Team" description={team.data ? team.data.name : undefined} />
      <ErrorMessage error={team.error} />
      {team.isLoading ? <Loading /> : null}
      {team.data ? (
        <Tabs
          label="Team settings"
          selected={tab}
          onSelect={(id) => setTab(id === 'general' ? null : id)}
          tabs={[
            {
              id: 'general',
              label: 'General',
              panel: () => (
                // Keyed by the team: a team switch starts the forms from the new team's values.
                <div key={team.data.id}>
                  <TeamNameCard team={team.data} />
                  <SenderIdentityCard team={team.data} />
                  <BrandKitCard team={team.data} />
                  <AiAssistCard team={team.data} />
                  <SsoSummaryCard team={team.data} />
                </div>
              ),
            },
            { id: 'members', label: 'Members', panel: () => <MembersTab /> },
            { id: 'invitations', label: 'Invitations', panel: () => <InvitationsTab /> },
            { id: 'apps', label: 'Connected apps', panel: () => <ConnectedAppsTab /> },
            { id: 'plan', label: 'Plan', panel: () => <PlanTab team={team.data} /> },
          ]}
        />
      ) : null}
    </>
  );
}
