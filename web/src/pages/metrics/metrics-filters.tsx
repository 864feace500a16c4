import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { api, type List } from '../../api/client';
import { SelectField } from '../../ui/field';
import { GRANULARITY_LABELS, RANGES, type MetricsFilters } from './metrics-query';

type Domain = { id: string; name: string };

/** Every IANA zone the browser knows, with UTC and the chosen one always offered. */
function timeZones(current: string): string[] {
  const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return [...new Set(['UTC', current, ...known])].sort((a, b) =>
    a === 'UTC' ? -1 : b === 'UTC' ? 1 : a.localeCompare(b),
  );
}

/** Range, period size, time zone and domain: each change is written to the URL by the page. */
export function MetricsFilterBar({
  filters,
  onChange,
}: {
  filters: MetricsFilters;
  onChange: (name: 'range' | 'granularity' | 'tz' | 'domain', value: string) => void;
}) {
  // The first 100 domains: enough for the filter of a mail appliance; the API has no name search.
  const domains = useQuery({
    queryKey: ['/domains', 'filter-options'],
    queryFn: () => api.get<List<Domain>>('/domains', { query: { limit: 100 } }),
    staleTime: 60_000,
  });
  const zones = useMemo(() => timeZones(filters.timeZone), [filters.timeZone]);
  const range = RANGES.find((r) => r.value === filters.range) ?? RANGES[1];
  return (
    <form className="filters" aria-label="Filters" onSubmit={(event) => event.preventDefault()}>
      <SelectField
        label="Range"
        value={filters.range}
        onChange={(event) => onChange('range', event.target.value)}
        options={RANGES.map((r) => ({ value: r.value, label: r.label }))}
      />
      <SelectField
        label="Period"
        value={filters.granularity}
        onChange={(event) => onChange('granularity', event.target.value)}
        options={range.granularities.map((g) => ({ value: g, label: GRANULARITY_LABELS[g] }))}
      />
      <SelectField
        label="Time zone"
        value={filters.timeZone}
        onChange={(event) => onChange('tz', event.target.value)}
        options={zones.map((zone) => ({ value: zone, label: zone.replace(/_/g, ' ') }))}
      />
      <SelectField
        label="Domain"
        value={filters.domainId}
        onChange={(event) => onChange('domain', event.target.value)}
        options={[
          { value: '', label: 'All domains' },
          ...(domains.data?.data ?? []).map((domain) => ({ value: domain.id, label: domain.name })),
        ]}
      />
    </form>
  );
}
