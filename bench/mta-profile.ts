/**
 * Mailroom's side of the MTA benchmark alone, for finding where the time goes: N messages of
 * SIZE bytes accepted (not timed), then delivered to the smtp-sink by the worker in this process
 * (or PROCESSES `mailroom mta` processes) with the statements counted by their first words and,
 * with PROFILE=path, a CPU profile of this process's main thread over the timed part only (open
 * it in Chrome's DevTools). Messages per second and CPU split are printed as bench:mta does.
 *
 *   node --max-semi-space-size=64 --import tsx bench/mta-profile.ts    (N 2000, SIZE 4096, PROCESSES 0, PROFILE unset)
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { TestDnsServer } from '../test/helpers/dns-server.js';
import { MailroomBench } from './mta-mailroom.js';
import { bodyOfSize } from './mta-message.js';
import { SinkProcess } from './mta-sink.js';

const N = Number(process.env.N ?? 2000);
const SIZE = Number(process.env.SIZE ?? 4096);
const PROCESSES = Number(process.env.PROCESSES ?? 0);
const PROFILE = process.env.PROFILE;

const sink = await SinkProcess.start('127.0.0.10');
const dns = await TestDnsServer.start();
dns.add(
  { type: 'MX', name: 'sink.test', exchange: 'mx.sink.test', priority: 10 },
  { type: 'A', name: 'mx.sink.test', address: '127.0.0.10' },
);
const bench = await MailroomBench.start({
  server: process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306',
  redis: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
  dns: dns.address,
  sink,
  egress: '127.0.0.2',
  label: `profile_${process.pid}`,
});
try {
  await bench.accept(N, bodyOfSize(SIZE));
  const statements = new Map<string, number>();
  bench.runtime.db.knex.on('query', (query: { sql: string }) => {
    const key = query.sql.split(/\s+/).slice(0, 4).join(' ');
    statements.set(key, (statements.get(key) ?? 0) + 1);
  });
  const inspector = new Session();
  if (PROFILE) {
    inspector.connect();
    await inspector.post('Profiler.enable');
    await inspector.post('Profiler.setSamplingInterval', { interval: 200 });
    await inspector.post('Profiler.start');
  }
  const result = await bench.deliver(N, PROCESSES);
  if (PROFILE) {
    const { profile } = await inspector.post('Profiler.stop');
    writeFileSync(PROFILE, JSON.stringify(profile));
    inspector.disconnect();
  }
  const ms = (seconds: number) => ((seconds * 1000) / N).toFixed(2);
  console.log(
    `${N} x ${SIZE} bytes: ${(N / result.seconds).toFixed(0)} msgs/s; CPU ms/msg: mta ${ms(result.cpu.mta)}, MariaDB ${ms(result.cpu.database)}, sink ${ms(result.cpu.sink)}`,
  );
  console.log(
    `statements of this process (${PROCESSES > 0 ? 'the mta processes are not counted' : 'worker included'}):`,
  );
  for (const [sql, count] of [...statements].sort((a, b) => b[1] - a[1]))
    console.log(`  ${String(count).padStart(6)}  ${sql}`);
} finally {
  await bench.close();
  await dns.close();
  await sink.stop();
}
