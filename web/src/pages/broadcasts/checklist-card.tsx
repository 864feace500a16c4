import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { api } from '../../api/client';
import { Link } from '../../router';
import { Badge } from '../../ui/badge';
import { ErrorMessage } from '../../ui/error-message';
import { Card, Loading } from '../../ui/page';
import type { Checklist } from './broadcast-types';

/** What to do about each failing check of the gate (core/campaigns/broadcasts/broadcast-gate.ts). */
const FIXES: Record<string, ReactNode> = {
  verified_domain: (
    <>
      Use a from address on a verified domain, or add and verify its domain on <Link to="/domains">Domains</Link>.
    </>
  ),
  postal_address: (
    <>
      Add the team’s postal address under Sender identity on <Link to="/team">Team</Link>.
    </>
  ),
  segment: <>Choose a segment in the draft above and save it.</>,
  marketing_enabled: <>The appliance’s operator has paused marketing sends; try again once they resume them.</>,
  team_standing: <>The team cannot send email; contact the appliance’s operator.</>,
  content: <>Write the HTML or plain text of the broadcast and save it.</>,
};

export const checklistKey = (id: string) => ['/broadcasts', id, 'checklist'];

/**
 * The send gate run without sending (GET /broadcasts/{id}/checklist), each check with its state,
 * the API's message and, when it fails, how to fix it. It reads the saved draft.
 */
export function ChecklistCard({ broadcastId, stale }: { broadcastId: string; stale: boolean }) {
  const checklist = useQuery({
    queryKey: checklistKey(broadcastId),
    queryFn: ({ signal }) => api.get<Checklist>(`/broadcasts/${broadcastId}/checklist`, { signal }),
  });
  return (
    <Card
      title="Checklist"
      id="broadcast-checklist"
      actions={
        checklist.data ? (
          <Badge tone={checklist.data.ready ? 'good' : 'bad'}>
            {checklist.data.ready ? 'Ready to send' : 'Not ready'}
          </Badge>
        ) : null
      }
    >
      {stale ? (
        <p className="alert alert-info" role="status">
          The checklist reads the saved draft: save your changes to check them.
        </p>
      ) : null}
      <ErrorMessage error={checklist.error} />
      {checklist.isLoading ? (
        <Loading />
      ) : (
        <ul className="broadcast-checklist" aria-label="Checks before sending">
          {(checklist.data?.checks ?? []).map((item) => (
            <li key={item.check} className={item.passed ? 'check-passed' : 'check-failed'}>
              <Badge tone={item.passed ? 'good' : 'bad'}>{item.passed ? 'Passed' : 'Failed'}</Badge>
              <div>
                <span>{item.message}</span>
                {!item.passed && FIXES[item.check] ? <p className="field-hint">Fix: {FIXES[item.check]}</p> : null}
              </div>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
