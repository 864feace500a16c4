import { useQuery } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { api, type List } from '../../api/client';
import { useSearchParam } from '../../router';
import { Button } from '../../ui/button';
import { SelectField, TextField } from '../../ui/field';

/** The API's last_event values (core/sending/emails/email-list-filter.ts). */
const STATUSES = [
  'queued',
  'scheduled',
  'sent',
  'delivered',
  'delivery_delayed',
  'bounced',
  'complained',
  'opened',
  'clicked',
  'failed',
  'suppressed',
  'canceled',
];

export type EmailFilterValues = {
  status: string;
  domain: string;
  from: string;
  to: string;
  q: string;
};

/** The filters, read from the URL so a filtered list can be bookmarked and shared. */
export function useEmailFilters() {
  const [status, setStatus] = useSearchParam('status');
  const [domain, setDomain] = useSearchParam('domain');
  const [from, setFrom] = useSearchParam('from');
  const [to, setTo] = useSearchParam('to');
  const [q, setQ] = useSearchParam('q');
  const values: EmailFilterValues = { status, domain, from, to, q };
  return { values, set: { status: setStatus, domain: setDomain, from: setFrom, to: setTo, q: setQ } };
}

/**
 * The GET /emails query for the filters. Dates are whole days in the person's time zone: "from"
 * is the start of its day, "to" the end of its day (created_before is exclusive: the next midnight).
 */
export function emailListQuery(values: EmailFilterValues): Record<string, string | undefined> {
  const startOf = (day: string, plusDays = 0) => {
    const date = new Date(`${day}T00:00:00`);
    if (Number.isNaN(date.getTime())) return undefined;
    date.setDate(date.getDate() + plusDays);
    return date.toISOString();
  };
  return {
    last_event: values.status || undefined,
    domain_id: values.domain || undefined,
    created_after: values.from ? startOf(values.from) : undefined,
    created_before: values.to ? startOf(values.to, 1) : undefined,
    q: values.q || undefined,
  };
}

type DomainOption = { id: string; name: string };

export function EmailFilters({
  filters,
  error,
}: {
  filters: ReturnType<typeof useEmailFilters>;
  error: (field: string) => string | undefined;
}) {
  const { values, set } = filters;
  // A team has a handful of domains: the first hundred fill the menu.
  const domains = useQuery({
    queryKey: ['/domains', 'options'],
    queryFn: () => api.get<List<DomainOption>>('/domains', { query: { limit: 100 } }),
    staleTime: 60_000,
  });
  // The search box is typed into locally and applied on Enter or "Search", not on every key.
  const [search, setSearch] = useState(values.q);
  useEffect(() => setSearch(values.q), [values.q]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    set.q(search.trim());
  };
  const active = Object.values(values).some(Boolean);
  return (
    <form className="filters" role="search" aria-label="Filter emails" onSubmit={submit}>
      <TextField
        label="Recipient or subject"
        type="search"
        value={search}
        onChange={(event) => setSearch(event.target.value)}
        error={error('q')}
        placeholder="ada@example.com"
      />
      <Button type="submit">Search</Button>
      <SelectField
        label="Status"
        value={values.status}
        onChange={(event) => set.status(event.target.value)}
        error={error('last_event')}
        options={[
          { value: '', label: 'Any status' },
          ...STATUSES.map((s) => ({ value: s, label: s.replace(/_/g, ' ') })),
        ]}
      />
      <SelectField
        label="Domain"
        value={values.domain}
        onChange={(event) => set.domain(event.target.value)}
        error={error('domain_id')}
        options={[
          { value: '', label: 'Any domain' },
          ...(domains.data?.data ?? []).map((domain) => ({ value: domain.id, label: domain.name })),
        ]}
      />
      <TextField
        label="Sent from"
        type="date"
        value={values.from}
        max={values.to || undefined}
        onChange={(event) => set.from(event.target.value)}
        error={error('created_after')}
      />
      <TextField
        label="Sent until"
        type="date"
        value={values.to}
        min={values.from || undefined}
        onChange={(event) => set.to(event.target.value)}
        error={error('created_before')}
      />
      {active ? (
        <Button
          variant="ghost"
          onClick={() => {
            // One navigation per parameter: each reads the URL the previous one wrote.
            for (const clear of Object.values(set)) clear(null);
            setSearch('');
          }}
        >
          Clear filters
        </Button>
      ) : null}
    </form>
  );
}
