/**
 * DKIM signing benchmark: signatures per second for 4 KB and 50 KB messages, RSA-2048 and
 * Ed25519, with the parsed-key cache against re-parsing the PEM for every message, and
 * mailauth's dkimSign (which takes a PEM per call) as a peer measured in the same run.
 *
 * The cases of one row run interleaved in rounds and the median round is printed, so a
 * machine busy with something else skews all columns alike rather than one.
 *
 *   node --import tsx bench/dkim-sign.bench.ts        (BENCH_ROUNDS, default 7; BENCH_ROUND_MS, default 300)
 */
import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { dkimSign } from 'mailauth/lib/dkim/sign.js';
import { DkimKeyCache } from '../mta/dkim/dkim-key-cache.js';
import { DkimSigner, type DkimSigningKey } from '../mta/dkim/dkim-signer.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 300);

/** The "before" of the issue: every message parses its PEM again. */
class ReparsingKeyCache extends DkimKeyCache {
  override get(privateKeyPem: string): KeyObject {
    return createPrivateKey(privateKeyPem);
  }
}

function signingKey(algorithm: 'rsa' | 'ed25519'): DkimSigningKey {
  const pair =
    algorithm === 'rsa' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ed25519');
  return {
    domain: 'bench.test',
    selector: `bench-${algorithm}`,
    algorithm,
    privateKeyPem: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

function message(bytes: number): Buffer {
  const head = [
    'From: Bench <bench@bench.test>',
    'To: someone@example.net',
    'Subject: Benchmark message',
    'Date: Mon, 23 Nov 2026 10:00:00 +0000',
    'Message-ID: <bench@bench.test>',
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    '',
  ].join('\r\n');
  const line = 'The quick brown fox jumps over the lazy dog,  twice\t and then some. \r\n';
  return Buffer.from(head + line.repeat(Math.ceil((bytes - head.length) / line.length)));
}

async function rate(run: () => unknown): Promise<number> {
  let count = 0;
  const start = performance.now();
  while (performance.now() - start < ROUND_MS) {
    await run();
    count += 1;
  }
  return count / ((performance.now() - start) / 1000);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Operations per second of each case: the median of ROUNDS interleaved rounds. */
async function compare<K extends string>(cases: Record<K, () => unknown>): Promise<Record<K, number>> {
  const names = Object.keys(cases) as K[];
  const samples = new Map<K, number[]>(names.map((name) => [name, []]));
  for (const name of names) for (let i = 0; i < 20; i++) await cases[name]();
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of names) samples.get(name)!.push(await rate(cases[name]));
  }
  return Object.fromEntries(names.map((name) => [name, median(samples.get(name)!)])) as Record<K, number>;
}

function mailauthSign(body: Buffer, key: DkimSigningKey) {
  const signatureData = [
    {
      signingDomain: key.domain,
      selector: key.selector,
      privateKey: key.privateKeyPem,
      algorithm: key.algorithm === 'rsa' ? 'rsa-sha256' : 'ed25519-sha256',
    },
  ];
  return dkimSign(body, { canonicalization: 'relaxed/relaxed', signatureData } as never);
}

const keys = [signingKey('rsa'), signingKey('ed25519')];
const cached = new DkimSigner();
const reparsing = new DkimSigner({ keyCache: new ReparsingKeyCache() });
const fmt = (n: number) => n.toFixed(0).padStart(8);

console.log(
  `DKIM signing, signatures/s, median of ${ROUNDS} interleaved rounds of ${ROUND_MS} ms (node ${process.version})`,
);
console.log('size    algorithm        cached  re-parse   ratio  mailauth  cached/mailauth');
for (const size of [4 * 1024, 50 * 1024]) {
  const body = message(size);
  for (const key of keys) {
    const result = await compare({
      cached: () => cached.sign(body, [key]),
      reparsed: () => reparsing.sign(body, [key]),
      mailauth: () => mailauthSign(body, key),
    });
    const label = `${String(size / 1024).padStart(2)} KB   ${key.algorithm.padEnd(9)}`;
    const ratio = (a: number, b: number) => `${(a / b).toFixed(2).padStart(5)}x`;
    console.log(
      `${label}  ${fmt(result.cached)}  ${fmt(result.reparsed)}  ${ratio(result.cached, result.reparsed)}  ${fmt(result.mailauth)}  ${ratio(result.cached, result.mailauth)}`,
    );
  }
  const both = await compare({ both: () => cached.sign(body, keys) });
  console.log(
    `${String(size / 1024).padStart(2)} KB   rsa+ed25519 in one message, cached: ${both.both.toFixed(0)} messages/s (${(both.both * 2).toFixed(0)} signatures/s)`,
  );
}
console.log('key cache:', cached.keyCache.stats());
