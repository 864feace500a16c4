import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, type List } from '../../api/client';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { SelectField, TextField } from '../../ui/field';
import { Card, EmptyState } from '../../ui/page';
import { DataTable } from '../../ui/table';
import type { IpPools, IpWarmup } from './admin-types';
import { count } from './format';

const ANSWERS = ['2xx', '4xx', '5xx', 'connection'] as const;

/** Sent today against the allowance: the numbers say it, the meter lets the eye see how full the day is. */
function Allowance({ sent, allowance, label }: { sent: number; allowance: number | null; label: string }) {
  if (allowance === null) return <span className="muted">no limit</span>;
  return (
    <span className="warmup-allowance">
      <meter min={0} max={Math.max(1, allowance)} value={Math.min(sent, allowance)} aria-label={label} /> {count(sent)}{' '}
      of {count(allowance)}
    </span>
  );
}

function WarmupAddress({ warmup, onStop, stopping }: { warmup: IpWarmup; onStop: () => void; stopping: boolean }) {
  // A row per provider that got mail or answered today; the others only as their allowance.
  const active = (p: IpWarmup['providers'][number]) => p.sent > 0 || Object.values(p.answers).some((n) => n > 0);
  const rows = warmup.providers.filter(active);
  const idle = warmup.providers.filter((p) => !active(p));
  return (
    <section aria-label={`Warm-up of ${warmup.address}`} className="warmup-address" style={{ marginTop: '1.5rem' }}>
      <h3>
        <code>{warmup.address}</code>{' '}
        {warmup.complete ? 'warm (schedule complete)' : `day ${warmup.day} of ${warmup.days}`}
      </h3>
      <p className="muted">
        Started {warmup.started_on} · {count(warmup.sent_today)} sent today{' '}
        <Button aria-label={`Stop the warm-up of ${warmup.address}`} busy={stopping} onClick={onStop}>
          Stop warm-up
        </Button>
      </p>
      {rows.length === 0 ? null : (
        <DataTable
          caption={`Sent today per provider from ${warmup.address}`}
          rows={rows}
          rowKey={(row) => row.provider}
          empty={<p className="muted">Nothing sent today.</p>}
          columns={[
            { header: 'Provider', cell: (row) => row.provider },
            {
              header: 'Sent today',
              cell: (row) => (
                <Allowance sent={row.sent} allowance={row.allowance} label={`${row.provider}: sent of allowance`} />
              ),
            },
            {
              header: 'Answers',
              cell: (row) =>
                ANSWERS.filter((c) => (row.answers[c] ?? 0) > 0)
                  .map((c) => `${c}: ${count(row.answers[c]!)}`)
                  .join(' · ') || <span className="muted">—</span>,
            },
          ]}
        />
      )}
      {idle.length > 0 ? (
        <p className="field-hint">
          Nothing sent today to{' '}
          {idle.map((p) => `${p.provider} (${p.allowance === null ? 'no limit' : count(p.allowance)})`).join(', ')}.
        </p>
      ) : null}
    </section>
  );
}

/** IP warm-up (`mailroom ip warmup`): progress of each warming address, start one, stop one. */
export function WarmupCard() {
  const client = useQueryClient();
  const [address, setAddress] = useState('');
  const [day, setDay] = useState('1');
  const warmups = useQuery({
    queryKey: ['admin', 'warmup'],
    queryFn: () => api.get<List<IpWarmup>>('/admin/ips/warmup'),
    refetchInterval: 30_000,
  });
  const pools = useQuery({ queryKey: ['admin', 'ip-pools'], queryFn: () => api.get<IpPools>('/admin/ip-pools') });
  const addresses = [...new Set((pools.data?.regions ?? []).flatMap((r) => r.addresses.map((a) => a.address)))];
  const chosen = address || addresses[0] || '';
  const refresh = () => client.invalidateQueries({ queryKey: ['admin', 'warmup'] });
  const start = useMutation({
    mutationFn: () => api.put<IpWarmup>(`/admin/ips/${encodeURIComponent(chosen)}/warmup`, { day: Number(day) }),
    onSuccess: refresh,
  });
  const stop = useMutation({
    mutationFn: (ip: string) => api.delete(`/admin/ips/${encodeURIComponent(ip)}/warmup`),
    onSuccess: refresh,
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    start.mutate();
  };
  const list = warmups.data?.data ?? [];
  return (
    <Card title="IP warm-up" id="ip-warmup">
      <p className="field-hint">
        A warming address sends no more than its day&apos;s allowance per provider; the rest leaves from warm addresses
        of its pool, or waits for the next day.
      </p>
      <form aria-label="Start a warm-up" onSubmit={onSubmit} className="admin-filter-form">
        <div className="admin-filter-fields">
          <SelectField
            label="Pool address"
            value={chosen}
            onChange={(event) => setAddress(event.target.value)}
            options={addresses.map((a) => ({ value: a, label: a }))}
            error={fieldError(start.error, 'address')}
          />
          <TextField
            label="Start on day"
            type="number"
            min={1}
            max={366}
            value={day}
            required
            onChange={(event) => setDay(event.target.value)}
            error={fieldError(start.error, 'day')}
          />
        </div>
        <div className="form-actions">
          <Button type="submit" variant="primary" busy={start.isPending} disabled={!chosen}>
            Start warm-up
          </Button>
        </div>
      </form>
      <ErrorMessage error={start.error ?? stop.error ?? warmups.error ?? pools.error} />
      {list.length === 0 && warmups.isSuccess ? <EmptyState title="No address is warming up" /> : null}
      {list.map((warmup) => (
        <WarmupAddress
          key={warmup.address}
          warmup={warmup}
          stopping={stop.isPending && stop.variables === warmup.address}
          onStop={() => stop.mutate(warmup.address)}
        />
      ))}
    </Card>
  );
}
