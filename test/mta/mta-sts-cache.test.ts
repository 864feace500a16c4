import { randomBytes } from 'node:crypto';
import t from 'tap';
import { createDnsLookup } from '../../lib/dns/dns-resolver.js';
import { createKeyValueStore } from '../../lib/kv/create-kv.js';
import { createLogger } from '../../lib/logger.js';
import { MtaStsCache } from '../../mta/delivery/tls-policy/mta-sts-cache.js';
import type { FetchResult } from '../../mta/delivery/tls-policy/mta-sts-fetcher.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { APP_USES_REDIS, TEST_REDIS_URL } from '../helpers/test-database.js';

/**
 * The MTA-STS cache (RFC 8461 5.1) over real DNS and the real shared store (Redis when the run
 * has one): the policy host is a function here, counting fetches and answering as told; the
 * end-to-end HTTPS path is in mta-sts.test.ts.
 */
const dns = await TestDnsServer.start();
const kv = createKeyValueStore({
  url: APP_USES_REDIS ? TEST_REDIS_URL : undefined,
  keyPrefix: `mailroom-test-${randomBytes(4).toString('hex')}:`,
});
const lookup = createDnsLookup({ servers: [dns.address], timeoutMs: 2000 });
const logger = createLogger('silent');
t.teardown(async () => {
  await kv.close();
  await dns.close();
});

const VALID = 'version: STSv1\r\nmode: enforce\r\nmx: mx.example.test\r\nmax_age: 3600\r\n';
function host(answers: FetchResult[]) {
  const calls: string[] = [];
  const fetch = async (domain: string): Promise<FetchResult> => {
    calls.push(domain);
    return answers.shift() ?? { kind: 'failed', failure: 'sts-policy-fetch-error', detail: 'no answer left' };
  };
  return { calls, fetch };
}
const txt = (domain: string, id: string) => {
  dns.remove((r) => r.name === `_mta-sts.${domain}`);
  dns.add({ type: 'TXT', name: `_mta-sts.${domain}`, value: `v=STSv1; id=${id}` });
};

t.test('no TXT record: no policy, nothing fetched', async (t) => {
  const { calls, fetch } = host([]);
  const cache = new MtaStsCache({ lookup, fetch, kv, logger });
  t.same(await cache.stateOf('nothing.test'), { kind: 'none' });
  t.same(calls, []);
});

t.test('a policy fetched by one process is reused by another through the shared store', async (t) => {
  txt('shared.test', 'a1');
  const first = host([{ kind: 'fetched', text: VALID }]);
  const one = new MtaStsCache({ lookup, fetch: first.fetch, kv, logger });
  t.match(await one.stateOf('shared.test'), { kind: 'policy', id: 'a1', policy: { mode: 'enforce' } });
  t.match(await one.stateOf('shared.test'), { kind: 'policy', id: 'a1' }, 'cached in memory');
  t.equal(first.calls.length, 1);
  const second = host([]);
  const other = new MtaStsCache({ lookup, fetch: second.fetch, kv, logger });
  t.match(await other.stateOf('shared.test'), { kind: 'policy', id: 'a1' });
  t.equal(second.calls.length, 0, 'the second cache did not fetch');
});

t.test('a failed or invalid refresh keeps the cached policy; without one the failure is the state', async (t) => {
  txt('keep.test', 'v1');
  const answers = host([
    { kind: 'fetched', text: VALID },
    { kind: 'fetched', text: 'version: STSv1\r\nmode: sometimes\r\n' },
    { kind: 'failed', failure: 'sts-webpki-invalid', detail: 'bad certificate' },
  ]);
  const cache = new MtaStsCache({ lookup, fetch: answers.fetch, kv, logger });
  await cache.stateOf('keep.test');
  txt('keep.test', 'v2');
  t.match(await cache.stateOf('keep.test'), { kind: 'policy', id: 'v1' }, 'an invalid new policy: the old one stays');
  txt('keep.test', 'v3');
  t.match(await cache.stateOf('keep.test'), { kind: 'policy', id: 'v1' }, 'an unreachable host: the old one stays');
  t.equal(answers.calls.length, 3, 'each new id was tried');

  txt('fresh.test', 'x');
  const fresh = host([{ kind: 'fetched', text: 'version: STSv1\r\nmode: enforce\r\nmax_age: 60\r\n' }]);
  const empty = new MtaStsCache({ lookup, fetch: fresh.fetch, kv, logger });
  t.match(await empty.stateOf('fresh.test'), { kind: 'unavailable', failure: 'sts-policy-invalid', detail: /mx/ });
});

t.test('a policy past its max_age is fetched again', async (t) => {
  txt('expiry.test', 'e1');
  let now = Date.now();
  const answers = host([
    { kind: 'fetched', text: VALID },
    { kind: 'fetched', text: VALID },
  ]);
  const cache = new MtaStsCache({ lookup, fetch: answers.fetch, logger, now: () => now });
  await cache.stateOf('expiry.test');
  now += 3599_000;
  await cache.stateOf('expiry.test');
  t.equal(answers.calls.length, 1, 'still fresh just before max_age');
  now += 2000;
  await cache.stateOf('expiry.test');
  t.equal(answers.calls.length, 2, 'fetched again after it');
});

t.test('a host that failed is not asked again for the same id for a while', async (t) => {
  txt('down.test', 'd1');
  let now = Date.now();
  const answers = host([
    { kind: 'failed', failure: 'sts-policy-fetch-error', detail: 'ECONNREFUSED' },
    { kind: 'fetched', text: VALID },
  ]);
  const cache = new MtaStsCache({ lookup, fetch: answers.fetch, logger, now: () => now });
  t.match(await cache.stateOf('down.test'), { kind: 'unavailable', failure: 'sts-policy-fetch-error' });
  t.match(await cache.stateOf('down.test'), { kind: 'unavailable' }, 'the failure stands');
  t.equal(answers.calls.length, 1, 'without asking again at once');
  now += 5 * 60_000 + 1;
  t.match(await cache.stateOf('down.test'), { kind: 'policy', id: 'd1' }, 'asked again later');
});
