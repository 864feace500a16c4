import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { Checkbox, SelectField, TextField } from '../../ui/field';
import { Card } from '../../ui/page';
import { useToast } from '../../ui/toast';
import { domainKey, receivingUnavailable, type Capability, type Domain } from './domain-types';

/** The body of PATCH /domains/{id} (updateDomainSchema). */
type DomainChanges = Partial<{
  open_tracking: boolean;
  click_tracking: boolean;
  tracking_subdomain: string;
  tls: Domain['tls'];
  capabilities: Partial<{ sending: Capability; receiving: Capability }>;
}>;

const onOff = (on: boolean): Capability => (on ? 'enabled' : 'disabled');

/**
 * Tracking, capabilities and the TLS policy, each saved as soon as it changes (PATCH answers a
 * reference only, so the domain is fetched again: switching a feature on can add a required
 * record and move the status).
 */
export function DomainSettingsCard({ domain }: { domain: Domain }) {
  const client = useQueryClient();
  const toast = useToast();
  const [subdomain, setSubdomain] = useState(domain.tracking_subdomain);
  const key = domainKey(domain.id);
  const save = useMutation({
    mutationFn: (changes: DomainChanges) => api.patch(`/domains/${domain.id}`, changes),
    // Optimistic: the control shows its new state at once and goes back if the API refuses.
    onMutate: async (changes) => {
      await client.cancelQueries({ queryKey: key, exact: true });
      const before = client.getQueryData<Domain>(key);
      if (before)
        client.setQueryData<Domain>(key, {
          ...before,
          ...changes,
          capabilities: { ...before.capabilities, ...changes.capabilities },
        });
      return { before };
    },
    onError: (_error, _changes, context) => {
      if (context?.before) client.setQueryData(key, context.before);
    },
    onSuccess: () => toast('Domain settings saved'),
    onSettled: async () => {
      await client.invalidateQueries({ queryKey: key, exact: true });
      await client.invalidateQueries({ queryKey: ['/domains', 'list'] });
    },
  });
  const noReceiving = receivingUnavailable(domain.region);
  const sending = domain.capabilities.sending === 'enabled';
  const receiving = domain.capabilities.receiving === 'enabled';
  return (
    <Card title="Settings" id="settings">
      <fieldset className="settings-group" disabled={save.isPending}>
        <legend>Tracking</legend>
        <Checkbox
          label="Open tracking"
          checked={domain.open_tracking}
          onChange={(event) => save.mutate({ open_tracking: event.target.checked })}
          hint="An invisible image in HTML mail records when it is opened."
        />
        <Checkbox
          label="Click tracking"
          checked={domain.click_tracking}
          onChange={(event) => save.mutate({ click_tracking: event.target.checked })}
          hint="Links go through the tracking subdomain, which records the click."
        />
        <form
          className="row"
          aria-label="Tracking subdomain"
          onSubmit={(event) => {
            event.preventDefault();
            save.mutate({ tracking_subdomain: subdomain.trim() });
          }}
        >
          <TextField
            label="Tracking subdomain"
            value={subdomain}
            onChange={(event) => setSubdomain(event.target.value)}
            hint={`Links are rewritten to ${subdomain || '…'}.${domain.name}; changing it asks for a new CNAME record.`}
            error={fieldError(save.error, 'tracking_subdomain')}
          />
          <Button type="submit" disabled={subdomain.trim() === domain.tracking_subdomain}>
            Save
          </Button>
        </form>
      </fieldset>
      <fieldset className="settings-group" disabled={save.isPending}>
        <legend>Capabilities</legend>
        <Checkbox
          label="Sending"
          checked={sending}
          onChange={(event) => save.mutate({ capabilities: { sending: onOff(event.target.checked) } })}
          hint="Mail may be sent from this domain. At least one of sending and receiving stays on."
        />
        <Checkbox
          label="Receiving"
          checked={receiving}
          disabled={Boolean(noReceiving) && !receiving}
          onChange={(event) => save.mutate({ capabilities: { receiving: onOff(event.target.checked) } })}
          hint={noReceiving ?? 'Mail sent to this domain is accepted here (its MX record must point here).'}
        />
      </fieldset>
      <fieldset className="settings-group" disabled={save.isPending}>
        <legend>Transport security</legend>
        <SelectField
          label="TLS when delivering"
          value={domain.tls}
          onChange={(event) => save.mutate({ tls: event.target.value as Domain['tls'] })}
          options={[
            { value: 'opportunistic', label: 'Opportunistic: encrypt when the receiver offers it' },
            { value: 'enforced', label: 'Enforced: never deliver without TLS' },
          ]}
          hint="Enforced holds mail for a receiver without TLS and bounces it in the end."
        />
      </fieldset>
      <ErrorMessage error={save.error} />
    </Card>
  );
}
