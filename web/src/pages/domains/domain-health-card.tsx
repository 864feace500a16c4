import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { StatusBadge } from '../../ui/badge';
import { Button } from '../../ui/button';
import { ErrorMessage } from '../../ui/error-message';
import { Card, Loading } from '../../ui/page';
import { Time } from '../../ui/time';
import { healthKey, type DomainHealth } from './domain-types';

const OUTCOME: Record<string, string> = { pass: 'Passes', warn: 'Warning', fail: 'Fails' };

/**
 * The doctor's checks of the domain's DNS (GET /domains/{id}/health): beyond "is each record
 * there", whether receivers will be satisfied (a single SPF record, a DMARC policy, no foreign
 * MX), each with the fix in words. Run live by the API, so only on demand and on status changes.
 */
export function DomainHealthCard({ domainId }: { domainId: string }) {
  const health = useQuery({
    queryKey: healthKey(domainId),
    queryFn: ({ signal }) => api.get<DomainHealth>(`/domains/${domainId}/health`, { signal }),
    staleTime: 30_000,
  });
  return (
    <Card
      title="Health checks"
      id="health"
      actions={
        <Button className="btn-small" busy={health.isFetching} onClick={() => void health.refetch()}>
          Run the checks again
        </Button>
      }
    >
      <ErrorMessage error={health.error} />
      {health.isLoading ? <Loading label="Checking the DNS…" /> : null}
      {health.data ? (
        <>
          <p className="muted">
            Checked <Time value={health.data.checked_at} />.
          </p>
          <ul className="checklist" aria-label="Health checks">
            {health.data.checks.map((check) => (
              <li key={check.id}>
                <StatusBadge status={check.status}>{OUTCOME[check.status] ?? check.status}</StatusBadge>
                <div>
                  <strong>{check.label}</strong>
                  <p>{check.detail}</p>
                  {check.fix ? (
                    <p className="checklist-fix">
                      <span className="checklist-fix-label">How to fix: </span>
                      {check.fix}
                    </p>
                  ) : null}
                </div>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </Card>
  );
}
