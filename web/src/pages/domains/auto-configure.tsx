import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, ApiError } from '../../api/client';
import { Button } from '../../ui/button';
import { ErrorMessage } from '../../ui/error-message';
import { useToast } from '../../ui/toast';
import { domainKey, type Domain } from './domain-types';

/**
 * POST /domains/{id}/auto-configure: the appliance writes the records into a zone its operator
 * configured for DNS UPDATE (dns.updateZones). The API cannot say beforehand whether such a zone
 * covers this domain, so the action is offered and its refusal ("No DNS UPDATE zone is
 * configured for …", 422) is told in words.
 */
export function AutoConfigure({ domain }: { domain: Domain }) {
  const client = useQueryClient();
  const toast = useToast();
  const configure = useMutation({
    mutationFn: () => api.post<Domain>(`/domains/${domain.id}/auto-configure`),
    onSuccess: (answer) => {
      client.setQueryData(domainKey(domain.id), answer);
      toast('Records published in your zone');
    },
  });
  if (domain.managed)
    return (
      <p>
        The appliance publishes this domain's records in your zone by DNS UPDATE: a key rotation or deleting the domain
        updates the zone too.
      </p>
    );
  const noZone =
    configure.error instanceof ApiError &&
    configure.error.status === 422 &&
    /No DNS UPDATE zone/i.test(configure.error.message);
  return (
    <div className="stack">
      <p>
        If the operator of this appliance gave it the right to update your DNS zone, it can publish the records itself
        and verify them at once.
      </p>
      <div>
        <Button busy={configure.isPending} onClick={() => configure.mutate()}>
          Publish the records automatically
        </Button>
      </div>
      {noZone ? (
        <div className="alert alert-info" role="status">
          This appliance cannot update the zone of {domain.name}: no DNS UPDATE zone is configured for it. Publish the
          records above at your DNS provider, or ask the operator to add your zone to <code>dns.updateZones</code>.
        </div>
      ) : (
        <ErrorMessage error={configure.error} title="The records could not be published." />
      )}
    </div>
  );
}
