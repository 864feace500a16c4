import { useRole } from '../../api/session';
import { Link, useSearchParam } from '../../router';
import { ErrorMessage } from '../../ui/error-message';
import { Card, Loading, PageHeader } from '../../ui/page';
import { SsoConfigForm } from './sso-config-form';
import { useTeam } from './team-query';
import { SsoSignInsCard } from './sso-sign-ins-card';
import { SsoStatusCard } from './sso-status-card';
import { isPlanRefusal, PlanRefusal, ssoErrorText, useSsoConfiguration } from './sso-types';

const back = { to: '/team', label: 'Team' };
const TITLE = 'Single sign-on';
const DESCRIPTION =
  'Let people of your domains sign in through your identity provider (OpenID Connect), and optionally require it.';

/**
 * Single sign-on for the team (owners and admins; the API refuses members, so a member reads why
 * and nothing is asked for). After a test sign-in the callback comes back here with
 * ?sso_test=ok or ?sso_test=failed&reason=<code>, shown above the settings.
 */
export default function SsoPage() {
  const role = useRole();
  const allowed = role === 'owner' || role === 'admin';
  const configuration = useSsoConfiguration(allowed);
  const team = useTeam();
  if (role === null) return <Loading />;
  if (!allowed)
    return (
      <>
        <PageHeader title={TITLE} back={back} description={DESCRIPTION} />
        <Card>
          <p>
            Only a team owner or admin can set up single sign-on. Ask one of them; you can see who they are on the{' '}
            <Link to="/team?tab=members">Members</Link> tab.
          </p>
        </Card>
      </>
    );
  const refusedByPlan = isPlanRefusal(configuration.error);
  // The plan says up front whether it includes single sign-on: without it, nothing new is asked
  // for (saving would be refused); settings kept from an earlier plan stay visible.
  const planLacksSso = team.data?.plan.single_sign_on === false;
  return (
    <>
      <PageHeader title={TITLE} back={back} description={DESCRIPTION} />
      <TestResult />
      {configuration.isLoading || team.isLoading ? <Loading /> : null}
      {refusedByPlan ? <PlanRefusal error={configuration.error} /> : <ErrorMessage error={configuration.error} />}
      {planLacksSso && !refusedByPlan ? <PlanRefusal /> : null}
      {configuration.data !== undefined && !configuration.error && team.data ? (
        <div key={configuration.data ? 'configured' : 'none'}>
          {configuration.data ? <SsoStatusCard configuration={configuration.data} /> : null}
          {configuration.data || !planLacksSso ? <SsoConfigForm configuration={configuration.data} /> : null}
          {configuration.data ? <SsoSignInsCard /> : null}
        </div>
      ) : null}
    </>
  );
}

/** What the test sign-in's callback said, until the person dismisses it. */
function TestResult() {
  const [result, setResult] = useSearchParam('sso_test');
  const [reason, setReason] = useSearchParam('reason');
  if (result !== 'ok' && result !== 'failed') return null;
  const dismiss = () => {
    setReason(null);
    setResult(null);
  };
  return (
    <div className={`alert ${result === 'ok' ? 'alert-good' : 'alert-error'} sso-test-result`} role="status">
      {result === 'ok' ? (
        <>
          <strong>The test sign-in worked.</strong> The provider signed you in and Mailroom verified its answer. You can
          activate single sign-on now.
        </>
      ) : (
        <>
          <strong>The test sign-in failed.</strong> {reason ? ssoErrorText(reason) : 'The provider gave no reason.'}
          {reason ? <code className="muted"> ({reason})</code> : null}
        </>
      )}{' '}
      <button type="button" className="link-button" onClick={dismiss}>
        Dismiss
      </button>
    </div>
  );
}
