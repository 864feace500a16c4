import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { api } from '../../api/client';
import { Button } from '../../ui/button';
import { CopyButton } from '../../ui/copy-button';
import { Dialog } from '../../ui/dialog';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { SelectField, TextField } from '../../ui/field';
import { PERMISSIONS, useTeamDomains, type Permission } from './api-key-types';

type Created = { id: string; token: string };

/**
 * POST /api-keys from a dialog, then the token in the same dialog: the API answers it this once
 * and keeps only its hash, so it is shown here, never stored in the browser, and gone on close.
 */
export function CreateKeyDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const formId = useId();
  const client = useQueryClient();
  const domains = useTeamDomains();
  const [name, setName] = useState('');
  const [permission, setPermission] = useState<Permission>('full_access');
  const [domainId, setDomainId] = useState('');
  const [created, setCreated] = useState<Created | null>(null);
  const create = useMutation({
    mutationFn: () =>
      api.post<Created>('/api-keys', {
        name: name.trim(),
        permission,
        ...(permission === 'sending_access' && domainId ? { domain_id: domainId } : {}),
      }),
    onSuccess: async (answer) => {
      setCreated(answer);
      await client.invalidateQueries({ queryKey: ['/api-keys', 'list'] });
    },
  });
  const close = () => {
    setCreated(null);
    setName('');
    setPermission('full_access');
    setDomainId('');
    create.reset();
    onClose();
  };
  // A pin must name a verified domain (the API refuses any other).
  const verified = (domains.data ?? []).filter((domain) => domain.status === 'verified');

  return (
    <Dialog
      open={open}
      title={created ? 'Your new API key' : 'Create an API key'}
      onClose={close}
      footer={
        created ? (
          <Button variant="primary" onClick={close}>
            I have saved it
          </Button>
        ) : (
          <>
            <Button onClick={close}>Cancel</Button>
            <Button type="submit" form={formId} variant="primary" busy={create.isPending}>
              Create key
            </Button>
          </>
        )
      }
    >
      {created ? (
        <NewToken token={created.token} />
      ) : (
        <form
          id={formId}
          className="stack"
          aria-label="Create an API key"
          onSubmit={(event) => {
            event.preventDefault();
            create.mutate();
          }}
        >
          <TextField
            label="Name"
            name="name"
            value={name}
            onChange={(event) => setName(event.target.value)}
            required
            autoFocus
            placeholder="Production"
            hint="Where the key is used, so you know which one to revoke."
            error={fieldError(create.error, 'name')}
          />
          <SelectField
            label="Permission"
            name="permission"
            value={permission}
            onChange={(event) => setPermission(event.target.value as Permission)}
            options={PERMISSIONS}
            hint={
              permission === 'full_access'
                ? 'Everything the API offers: sending, domains, keys, webhooks.'
                : 'Sending e-mails only; every other route refuses it.'
            }
            error={fieldError(create.error, 'permission')}
          />
          {permission === 'sending_access' ? (
            <SelectField
              label="Domain"
              name="domain_id"
              value={domainId}
              onChange={(event) => setDomainId(event.target.value)}
              options={[
                { value: '', label: 'Any domain of the team' },
                ...verified.map((domain) => ({ value: domain.id, label: domain.name })),
              ]}
              hint={
                verified.length === 0
                  ? 'Only a verified domain can be chosen, and this team has none yet.'
                  : 'The key may send only from this domain.'
              }
              error={fieldError(create.error, 'domain_id')}
            />
          ) : null}
          <ErrorMessage error={domains.error} title="The domains could not be listed." />
          <ErrorMessage error={create.error} />
        </form>
      )}
    </Dialog>
  );
}

/** The token, shown once, with the warning that it cannot be shown again. */
function NewToken({ token }: { token: string }) {
  return (
    <>
      <div className="alert alert-warn">
        <strong>Copy this key now: you will not see it again.</strong> The appliance keeps only a hash of it. If you
        lose it, revoke it and create another.
      </div>
      <div className="token-box">
        <code data-testid="api-key-token">{token}</code>
        <CopyButton value={token} label="Copy the key" />
      </div>
      <p className="field-hint">
        Send it as <code>Authorization: Bearer …</code>, or give it to the <code>resend</code> SDK.
      </p>
    </>
  );
}
