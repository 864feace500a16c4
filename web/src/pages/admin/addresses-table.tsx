import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { Badge } from '../../ui/badge';
import { Button } from '../../ui/button';
import { ConfirmDialog } from '../../ui/dialog';
import { TextField } from '../../ui/field';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import { useToast } from '../../ui/toast';
import type { EgressAddress } from './admin-types';
import { CheckBadge } from './check-badge';

/** Whether the address sends, in words: config, operator, or in use. */
function AddressState({ address }: { address: EgressAddress }) {
  if (address.disabled_in_config) return <Badge tone="bad">disabled in config</Badge>;
  if (address.disabled_by_operator)
    return (
      <span>
        <Badge tone="bad">disabled</Badge>{' '}
        <span className="muted">
          {address.disabled_by_operator.reason ?? 'no reason given'} (
          <Time value={address.disabled_by_operator.since} />)
        </span>
      </span>
    );
  return address.in_use ? <Badge tone="good">in use</Badge> : <Badge tone="warn">not in use</Badge>;
}

function Rests({ address }: { address: EgressAddress }) {
  if (address.rests.length === 0) return <span className="muted">None</span>;
  return (
    <ul className="admin-plain-list">
      {address.rests.map((rest) => (
        <li key={rest.destination}>
          <strong>{rest.destination}</strong> until <Time value={rest.until} mode="absolute" /> ({rest.strikes} strike
          {rest.strikes === 1 ? '' : 's'}
          {rest.reason ? `: ${rest.reason}` : ''})
        </li>
      ))}
    </ul>
  );
}

/** One region's addresses, each with its HELO, PTR check, rests and an enable/disable switch. */
export function AddressesTable({
  region,
  addresses,
  ptrChecked,
}: {
  region: string;
  addresses: EgressAddress[];
  ptrChecked: boolean;
}) {
  const client = useQueryClient();
  const toast = useToast();
  const [disabling, setDisabling] = useState<string | null>(null);
  const [reason, setReason] = useState('');
  const refresh = () => client.invalidateQueries({ queryKey: ['admin', 'ip-pools'] });
  const disable = useMutation({
    mutationFn: (address: string) =>
      api.post(
        `/admin/ip-pools/addresses/${encodeURIComponent(address)}/disable`,
        reason.trim() ? { reason: reason.trim() } : {},
      ),
    onSuccess: async (_answer, address) => {
      setDisabling(null);
      setReason('');
      toast(`${address} disabled`);
      await refresh();
    },
  });
  const enable = useMutation({
    mutationFn: (address: string) => api.post(`/admin/ip-pools/addresses/${encodeURIComponent(address)}/enable`, {}),
    onSuccess: async (_answer, address) => {
      toast(`${address} enabled`);
      await refresh();
    },
    onError: (error) => toast(error.message, 'bad'),
  });
  return (
    <>
      <DataTable
        caption={`Egress addresses of ${region}`}
        rowKey={(row) => row.address}
        rows={addresses}
        columns={[
          { header: 'Address', cell: (row) => <code>{row.address}</code> },
          { header: 'HELO name', cell: (row) => row.helo },
          { header: 'Weight', cell: (row) => row.weight, className: 'num' },
          {
            header: 'PTR',
            cell: (row) =>
              row.ptr ? (
                <span>
                  <CheckBadge status={row.ptr.status} /> <span className="muted">{row.ptr.detail}</span>
                </span>
              ) : (
                <span className="muted">{ptrChecked ? '—' : 'Not checked'}</span>
              ),
          },
          { header: 'State', cell: (row) => <AddressState address={row} /> },
          { header: 'Resting for', cell: (row) => <Rests address={row} /> },
          {
            header: <span className="visually-hidden">Actions</span>,
            cell: (row) =>
              row.disabled_by_operator || row.rests.length > 0 ? (
                <Button
                  className="btn-small"
                  busy={enable.isPending && enable.variables === row.address}
                  onClick={() => enable.mutate(row.address)}
                  aria-label={`Enable ${row.address}${row.rests.length > 0 && !row.disabled_by_operator ? ' (end its rests)' : ''}`}
                >
                  Enable
                </Button>
              ) : (
                <Button
                  className="btn-small"
                  variant="danger"
                  disabled={row.disabled_in_config}
                  onClick={() => setDisabling(row.address)}
                  aria-label={`Disable ${row.address}`}
                >
                  Disable
                </Button>
              ),
          },
        ]}
      />
      <ConfirmDialog
        open={disabling !== null}
        title={`Disable ${disabling ?? ''}?`}
        confirmLabel="Disable address"
        onConfirm={() => disabling && disable.mutate(disabling)}
        onClose={() => {
          setDisabling(null);
          disable.reset();
        }}
        busy={disable.isPending}
        error={disable.error}
      >
        <p>
          No mail leaves from {disabling} on any node until it is enabled again; the rest of its pool keeps sending.
        </p>
        <TextField
          label="Reason (kept with the address)"
          value={reason}
          onChange={(event) => setReason(event.target.value)}
        />
      </ConfirmDialog>
    </>
  );
}
