import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { createDnsLookup } from '../../lib/dns/dns-resolver.js';
import { createStsFetcher } from '../../mta/delivery/tls-policy/mta-sts-fetcher.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { TestCa } from '../helpers/test-ca.js';

/** Fetching policy files (RFC 8461 3.3) from a real HTTPS server on loopback, named in the test DNS. */
const ca = TestCa.create();
const names = ['ok', 'redirect', 'html', 'missing', 'big'].map((n) => `mta-sts.${n}.test`);
const trusted = ca.issue(names);
const answers: Record<string, (res: import('node:http').ServerResponse) => void> = {
  ok: (res) => res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('version: STSv1\r\n'),
  redirect: (res) => res.writeHead(301, { location: 'https://mta-sts.ok.test/.well-known/mta-sts.txt' }).end(),
  html: (res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>'),
  missing: (res) => res.writeHead(404).end(),
  big: (res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(70 * 1024)),
};
const serve = (key: string, cert: string) =>
  createServer({ key, cert }, (req, res) => {
    const name = String(req.headers.host)
      .replace(/^mta-sts\./, '')
      .replace(/\.test(:\d+)?$/, '');
    (answers[name] ?? answers.missing!)(res);
  });
const server = serve(trusted.key, trusted.cert);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.31', () => resolve()));
const port = (server.address() as AddressInfo).port;
const untrusted = ca.issue(['mta-sts.selfsigned.test'], { selfSigned: true });
const rogue = serve(untrusted.key, untrusted.cert);
await new Promise<void>((resolve) => rogue.listen(port, '127.0.0.32', () => resolve()));

const dns = await TestDnsServer.start();
for (const name of names) dns.add({ type: 'A', name, address: '127.0.0.31' });
dns.add({ type: 'A', name: 'mta-sts.selfsigned.test', address: '127.0.0.32' });
t.teardown(async () => {
  await new Promise((resolve) => server.close(resolve));
  await new Promise((resolve) => rogue.close(resolve));
  await dns.close();
});
const fetch = createStsFetcher({
  lookup: createDnsLookup({ servers: [dns.address], timeoutMs: 2000 }),
  port,
  timeoutMs: 5000,
  ca: ca.caPem,
});

t.test('a policy served as text/plain by a trusted host is fetched', async (t) => {
  t.same(await fetch('ok.test'), { kind: 'fetched', text: 'version: STSv1\r\n' });
});

t.test('anything else is a failure, named as RFC 8460 does', async (t) => {
  t.match(await fetch('redirect.test'), { kind: 'failed', failure: 'sts-policy-fetch-error', detail: /301/ });
  t.match(await fetch('html.test'), { kind: 'failed', failure: 'sts-policy-fetch-error', detail: /text\/html/ });
  t.match(await fetch('missing.test'), { kind: 'failed', failure: 'sts-policy-fetch-error', detail: /404/ });
  t.match(await fetch('big.test'), { kind: 'failed', failure: 'sts-policy-fetch-error', detail: /bytes/ });
  t.match(await fetch('nowhere.test'), { kind: 'failed', failure: 'sts-policy-fetch-error', detail: /no address/ });
  t.match(await fetch('selfsigned.test'), { kind: 'failed', failure: 'sts-webpki-invalid' });
});
