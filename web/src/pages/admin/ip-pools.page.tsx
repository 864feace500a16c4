import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { Button } from '../../ui/button';
import { ErrorMessage } from '../../ui/error-message';
import { Card, Loading, PageHeader } from '../../ui/page';
import { Time } from '../../ui/time';
import type { IpPools } from './admin-types';
import { AddressesTable } from './addresses-table';

/** The egress addresses by region: HELO names, reverse DNS, which rest and until when, on/off. */
export default function IpPoolsPage() {
  // Reverse DNS look-ups take a moment: done when asked, not on every visit.
  const [checkPtr, setCheckPtr] = useState(false);
  const pools = useQuery({
    queryKey: ['admin', 'ip-pools', checkPtr],
    queryFn: () => api.get<IpPools>('/admin/ip-pools', { query: { check_ptr: checkPtr || undefined } }),
  });
  return (
    <>
      <PageHeader
        title="IP pools"
        description="The addresses mail leaves from, by region. A destination that refuses an address rests it for a while; the rest of the pool keeps sending."
        actions={
          <Button
            busy={checkPtr && pools.isFetching}
            disabled={checkPtr && pools.isFetching}
            onClick={() => (checkPtr ? void pools.refetch() : setCheckPtr(true))}
          >
            {checkPtr ? 'Check PTR again' : 'Check PTR records'}
          </Button>
        }
      />
      <ErrorMessage error={pools.error} />
      {pools.isLoading ? <Loading /> : null}
      {pools.data ? (
        <>
          <p className="muted">
            As of <Time value={pools.data.generated_at} mode="absolute" />.
          </p>
          {pools.data.regions.map((region) => (
            <Card key={region.region} title={`Region ${region.region}`} id={`region-${region.region}`}>
              <AddressesTable region={region.region} addresses={region.addresses} ptrChecked={checkPtr} />
            </Card>
          ))}
          {pools.data.regions.length === 0 ? (
            <Card>
              <p>No region is configured (mta.regions in the configuration).</p>
            </Card>
          ) : null}
        </>
      ) : null}
    </>
  );
}
