import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { api, ApiError } from '../../api/client';
import { domainKey, healthKey, type Domain } from './domain-types';

/** How often the page asks the appliance to look the records up again while it waits for them. */
export const CHECK_EVERY_SECONDS = 5;

/**
 * True while the page should keep checking: the domain is not verified yet, or a rotated DKIM
 * key waits for its record (it signs only once found). Tracking and receiving records are not
 * counted: they stay pending while their feature is off.
 */
export const awaitingRecords = (domain: Domain) =>
  domain.status !== 'verified' ||
  domain.records.some((record) => record.record === 'DKIM' && record.status !== 'verified');

/**
 * Live verification: while records are awaited, POST /domains/{id}/verify (the same check the
 * scheduler runs, done now) and refetch the domain every few seconds, so a record published in
 * another tab turns green here without a reload. Only while the tab is visible; a refusal that
 * will not change by itself (4xx other than 429, e.g. a claim still running) stops the timer
 * until the person asks again with "Check now".
 */
export type LiveCheck = ReturnType<typeof useLiveCheck>;

export function useLiveCheck(domain: Domain | undefined) {
  const client = useQueryClient();
  const id = domain?.id;
  const check = useMutation({
    mutationFn: () => api.post(`/domains/${id}/verify`),
    onSettled: async () => {
      await client.invalidateQueries({ queryKey: domainKey(id ?? ''), exact: true });
    },
  });
  const stopped =
    check.error instanceof ApiError &&
    check.error.status >= 400 &&
    check.error.status < 500 &&
    check.error.status !== 429;
  const live = Boolean(domain && awaitingRecords(domain)) && !stopped;

  // The latest mutate and pending state, read by the timer without restarting it on each render.
  const latest = useRef({ mutate: check.mutate, pending: check.isPending });
  latest.current = { mutate: check.mutate, pending: check.isPending };

  useEffect(() => {
    if (!live) return;
    const tick = () => {
      if (!document.hidden && !latest.current.pending) latest.current.mutate();
    };
    const first = window.setTimeout(tick, 0);
    const timer = window.setInterval(tick, CHECK_EVERY_SECONDS * 1000);
    return () => {
      window.clearTimeout(first);
      window.clearInterval(timer);
    };
  }, [live, id]);

  // The health checklist looks at the same DNS: refresh it when the domain's status moves.
  const status = domain?.status;
  const seenStatus = useRef(status);
  useEffect(() => {
    if (id && status && seenStatus.current && seenStatus.current !== status)
      void client.invalidateQueries({ queryKey: healthKey(id) });
    seenStatus.current = status;
  }, [client, id, status]);

  return {
    live,
    checking: check.isPending,
    error: check.error,
    checkNow: () => {
      check.reset();
      check.mutate();
      if (id) void client.invalidateQueries({ queryKey: healthKey(id) });
    },
  };
}
