import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { api, ApiError } from '../../api/client';
import { useRouter } from '../../router';
import { Button } from '../../ui/button';
import { Dialog } from '../../ui/dialog';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { Checkbox, SelectField, TextField } from '../../ui/field';
import { domainKey, receivingUnavailable, REGIONS, type Domain, type Region } from './domain-types';

/** POST /domains from a dialog; on success the new domain's page (its records to publish). */
export function AddDomainDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const formId = useId();
  const client = useQueryClient();
  const { navigate } = useRouter();
  const [name, setName] = useState('');
  const [region, setRegion] = useState<Region>('us-east-1');
  const [returnPath, setReturnPath] = useState('');
  const [openTracking, setOpenTracking] = useState(false);
  const [clickTracking, setClickTracking] = useState(false);
  const [receiving, setReceiving] = useState(false);
  const [replaceMx, setReplaceMx] = useState(false);
  const noReceiving = receivingUnavailable(region);

  const create = useMutation({
    mutationFn: () =>
      api.post<Domain>('/domains', {
        name: name.trim(),
        region,
        open_tracking: openTracking,
        click_tracking: clickTracking,
        ...(returnPath.trim() ? { custom_return_path: returnPath.trim() } : {}),
        capabilities: { sending: 'enabled', receiving: receiving && !noReceiving ? 'enabled' : 'disabled' },
        ...(replaceMx ? { confirm_replace_mx: true } : {}),
      }),
    onSuccess: async (domain) => {
      client.setQueryData(domainKey(domain.id), domain);
      await client.invalidateQueries({ queryKey: ['/domains', 'list'] });
      navigate(`/domains/${domain.id}`);
    },
  });
  // The receiving address already has another provider's MX: the API asks to confirm replacing it.
  const mxInUse = create.error instanceof ApiError && create.error.errorName === 'receiving_mx_in_use';

  return (
    <Dialog
      open={open}
      title="Add a domain"
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" form={formId} variant="primary" busy={create.isPending}>
            Add domain
          </Button>
        </>
      }
    >
      <form
        id={formId}
        className="stack"
        aria-label="Add a domain"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <TextField
          label="Domain name"
          name="name"
          placeholder="mail.example.com"
          value={name}
          onChange={(event) => setName(event.target.value)}
          required
          autoFocus
          hint="A subdomain such as mail.example.com keeps the records of your main domain untouched."
          error={fieldError(create.error, 'name')}
        />
        <SelectField
          label="Region"
          name="region"
          value={region}
          onChange={(event) => setRegion(event.target.value as Region)}
          options={REGIONS.map((value) => ({ value, label: value }))}
          hint="The pool of addresses that sends this domain's mail; its SPF record lists them. It cannot be changed later."
          error={fieldError(create.error, 'region')}
        />
        <TextField
          label="Custom return path (optional)"
          name="custom_return_path"
          placeholder="send"
          value={returnPath}
          onChange={(event) => setReturnPath(event.target.value)}
          hint="The subdomain bounces come back to, one DNS label. Empty: send."
          error={fieldError(create.error, 'custom_return_path')}
        />
        <Checkbox
          label="Open tracking"
          checked={openTracking}
          onChange={(event) => setOpenTracking(event.target.checked)}
          hint="Adds an invisible image to HTML mail to record opens."
        />
        <Checkbox
          label="Click tracking"
          checked={clickTracking}
          onChange={(event) => setClickTracking(event.target.checked)}
          hint="Rewrites links to record clicks through the tracking subdomain."
        />
        <Checkbox
          label="Receiving"
          checked={receiving && !noReceiving}
          disabled={Boolean(noReceiving)}
          onChange={(event) => setReceiving(event.target.checked)}
          hint={noReceiving ?? 'Accept mail sent to this domain (adds an MX record).'}
        />
        {mxInUse ? (
          <Checkbox
            label="Replace the existing MX record"
            checked={replaceMx}
            onChange={(event) => setReplaceMx(event.target.checked)}
            hint="Mail for this domain then comes here instead of its current provider."
          />
        ) : null}
        <ErrorMessage error={create.error} />
      </form>
    </Dialog>
  );
}
