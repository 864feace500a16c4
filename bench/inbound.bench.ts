/**
 * Inbound MX benchmark: messages per second accepted durably by our MX (Haraka with our plugins,
 * the bridge to the Mailroom process, the raw message appended to the message spool (one fsync
 * for concurrent messages) and its rows committed before the 250) against, in the same run and under the same load:
 *  1. stock Haraka (same package) with `rcpt_to.in_host_list` + `queue/discard`: Haraka's own
 *     ceiling on this machine, nothing stored; target: ours >= 0.5x its rate;
 *  2. Postfix's smtpd into its queue (cleanup fsyncs every queue file before the 250), local
 *     delivery to `discard:`, from the Debian package unpacked in .cache/postfix by
 *     scripts/fetch-smtp-sink.sh; target: ours >= 1.5x its rate. Skipped, saying why, where
 *     Postfix cannot run (not root, no package).
 *
 * Load: INBOUND_N messages of about INBOUND_SIZE bytes (multipart/alternative, text and HTML),
 * one recipient each on the receiving domain, over INBOUND_CONCURRENCY SMTP sessions from
 * 127.0.0.1 (raw sockets, one command at a time as nodemailer sends); timed from the first
 * connection to the last 250. INBOUND_PIPELINING=1 pipelines MAIL, RCPT and DATA where the
 * server offers PIPELINING, as MTAs do; not the default, because stock Haraka writes its
 * replies without TCP_NODELAY, so pipelined replies wait on the client's delayed ACK (about
 * 40 ms per message per session on loopback): it is then bound by that timer, not by its CPU,
 * and the ratio against it says little (our MX sets TCP_NODELAY: the mailroom_nodelay plugin). Each server first accepts
 * INBOUND_WARMUP messages untimed (node's JIT needs about that many; Postfix starts its
 * daemons); then INBOUND_ROUNDS rounds measure the servers in turn (the order rotates each
 * round); medians are printed with the lowest and highest round.
 *
 * CPU per message: user + system time from /proc of each server's processes (children that
 * exited meanwhile included), from the first connection until the server is idle again
 * (Postfix: its queue empty, so qmgr's hand-over to discard is included); ours split into the
 * Mailroom process and its Haraka child. The load generator (and the DNS server answering our
 * MX's SPF/DMARC look-ups) runs in this process: its CPU is printed apart, in no ratio.
 *
 *   npm run bench:inbound    (node --import tsx bench/inbound.bench.ts)
 *
 * Env: INBOUND_N (2000), INBOUND_CONCURRENCY (20), INBOUND_SIZE (4096), INBOUND_WARMUP (1000),
 * INBOUND_ROUNDS (3), INBOUND_PIPELINING (0), MAILROOM_BENCH_DATABASE_URL (unset: our MX on its
 * embedded SQLite default; mysql://root@127.0.0.1:3306: on that MariaDB/MySQL server, in a
 * database of its own that is dropped at the end; the server's CPU is then shown too).
 * Everything lives in one temporary directory, removed at the end with every process started.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestDnsServer } from '../test/helpers/dns-server.js';
import { cpuSeconds } from './cpu-ticks.js';
import { MailroomMx } from './inbound/mailroom-mx.js';
import { buildMessages, meanBytes } from './inbound/message.js';
import { PostfixSmtpd, PostfixUnavailable } from './inbound/postfix-smtpd.js';
import { signalGroup } from './inbound/process-tree.js';
import { sendLoad } from './smtp-load.js';
import { HARAKA_VERSION, StockHaraka } from './inbound/stock-haraka.js';

const N = Number(process.env.INBOUND_N ?? 2000);
const CONCURRENCY = Number(process.env.INBOUND_CONCURRENCY ?? 20);
const SIZE = Number(process.env.INBOUND_SIZE ?? 4096);
const WARMUP = Number(process.env.INBOUND_WARMUP ?? 1000);
const ROUNDS = Number(process.env.INBOUND_ROUNDS ?? 3);
const PIPELINING = process.env.INBOUND_PIPELINING === '1';
const MYSQL = process.env.MAILROOM_BENCH_DATABASE_URL || null;
const DOMAIN = 'in.bench.test';
const SENDER_DOMAIN = 'sender.bench.test';
const SENDER = `sender@${SENDER_DOMAIN}`;
const TARGETS = { haraka: 0.5, postfix: 1.5 };
/** Issue 37's "today" column (before group-committed intake, header-only parse, DNS cache). */
const TODAY = { haraka: 0.16, postfix: 0.47 };

for (const [name, value] of Object.entries({ N, CONCURRENCY, SIZE, ROUNDS }))
  if (!Number.isInteger(value) || value < 1) throw new Error(`INBOUND_${name} must be a positive integer`);

type Peer = {
  readonly name: string;
  readonly host: string;
  readonly port: number;
  readonly pid: number;
  readonly errors: string[];
  readonly running: boolean;
  cpu(): { total: number; parts: Record<string, number> };
  settle(): Promise<void>;
  stop(): Promise<void>;
};

type Sample = {
  accepted: number;
  failures: { count: number; examples: string[] };
  seconds: number;
  rate: number;
  /** CPU ms per message: the server's processes in all, and by part. */
  cpuMs: number;
  partsMs: Record<string, number>;
  /** MariaDB's CPU ms per message (our MX on MariaDB only). */
  databaseMs: number | null;
  clientMs: number;
};

// --- Clean-up: every process started and the temporary directory, whatever happens.
const base = mkdtempSync(join(tmpdir(), 'mailroom-bench-inbound-'));
chmodSync(base, 0o711); // Postfix's daemons (mail_owner) must reach their queue below it
const stops: Array<() => Promise<void>> = [];
const groups: number[] = [];
let cleaning: Promise<void> | null = null;
function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    for (const stop of stops.splice(0).reverse())
      await stop().catch((err: unknown) => console.error(`clean-up: ${(err as Error).message}`));
    rmSync(base, { recursive: true, force: true });
  })();
  return cleaning;
}
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void cleanUp().finally(() => process.exit(130)));
// Last resort (an uncaught error, process.exit): no server is left running, nothing left behind.
process.once('exit', () => {
  for (const pid of groups) signalGroup(pid, 'SIGKILL');
  rmSync(base, { recursive: true, force: true });
});
function started<T extends Peer>(peer: T): T {
  groups.push(peer.pid);
  stops.push(() => peer.stop());
  return peer;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
/** The median, and the lowest-highest round in parentheses when there are several. */
const cell = (values: number[], digits = 0, unit = '') =>
  values.length === 1
    ? `${values[0]!.toFixed(digits)}${unit}`
    : `${median(values).toFixed(digits)}${unit} (${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)})`;

/** One timed run of N fresh messages against one server. */
async function measure(peer: Peer, tag: string, database: boolean): Promise<Sample> {
  const messages = buildMessages(N, SIZE, { from: SENDER, domain: DOMAIN, tag });
  const databaseBefore = database ? cpuSeconds(['mariadbd', 'mysqld']) : 0;
  const before = peer.cpu();
  const client = process.cpuUsage();
  const result = await sendLoad({
    host: peer.host,
    port: peer.port,
    messages,
    concurrency: CONCURRENCY,
    pipelining: PIPELINING,
  });
  const clientCpu = process.cpuUsage(client);
  await peer.settle();
  const after = peer.cpu();
  const perMessage = (seconds: number) => (seconds * 1000) / Math.max(1, result.accepted);
  return {
    accepted: result.accepted,
    failures: result.failures,
    seconds: result.seconds,
    rate: result.accepted / result.seconds,
    cpuMs: perMessage(after.total - before.total),
    partsMs: Object.fromEntries(
      Object.entries(after.parts).map(([part, value]) => [part, perMessage(value - (before.parts[part] ?? 0))]),
    ),
    databaseMs: database ? perMessage(cpuSeconds(['mariadbd', 'mysqld']) - databaseBefore) : null,
    clientMs: perMessage((clientCpu.user + clientCpu.system) / 1e6),
  };
}

function describe(sample: Sample): string {
  const parts = Object.entries(sample.partsMs);
  const split = parts.length > 1 ? `: ${parts.map(([part, ms]) => `${part} ${ms.toFixed(2)}`).join(', ')}` : '';
  const database = sample.databaseMs === null ? '' : `, MariaDB ${sample.databaseMs.toFixed(2)}`;
  const failed = sample.failures.count > 0 ? `, ${sample.failures.count} NOT ACCEPTED` : '';
  return `${sample.rate.toFixed(0)}/s (${sample.seconds.toFixed(2)} s; CPU ms/msg ${sample.cpuMs.toFixed(2)}${split}${database}; client ${sample.clientMs.toFixed(2)}${failed})`;
}

try {
  const dns = await TestDnsServer.start();
  stops.push(() => dns.close());
  // The sender's domain publishes SPF and DMARC, as real senders do: our MX checks them.
  dns.add(
    { type: 'TXT', name: SENDER_DOMAIN, value: 'v=spf1 ip4:127.0.0.0/8 -all' },
    { type: 'TXT', name: `_dmarc.${SENDER_DOMAIN}`, value: 'v=DMARC1; p=none' },
  );

  const mxOptions = {
    dir: join(base, 'mailroom'),
    domain: DOMAIN,
    mysqlServer: MYSQL,
    dns: dns.address,
    concurrency: CONCURRENCY,
  };
  const ours = await MailroomMx.start(mxOptions);
  groups.push(ours.pid);
  stops.push(async () => {
    await ours.stop();
    await ours.dropDatabase();
  });
  const stock = started(await StockHaraka.start({ dir: join(base, 'haraka'), domain: DOMAIN }));
  let postfix: PostfixSmtpd | null = null;
  let postfixSkipped = '';
  try {
    postfix = started(
      await PostfixSmtpd.start({ dir: join(base, 'postfix'), domain: DOMAIN, concurrency: CONCURRENCY }),
    );
  } catch (err) {
    if (!(err instanceof PostfixUnavailable)) throw err;
    postfixSkipped = err.message;
  }

  const sample = buildMessages(1, SIZE, { from: SENDER, domain: DOMAIN, tag: 'size' });
  console.log(
    [
      `Inbound MX benchmark: ${N} messages of ${(meanBytes(sample) / 1024).toFixed(1)} KB (multipart/alternative, text + HTML), one recipient each on ${DOMAIN}, ` +
        `${CONCURRENCY} concurrent SMTP sessions from 127.0.0.1 (plain TCP${PIPELINING ? ', MAIL/RCPT/DATA pipelined when PIPELINING is offered' : ', no pipelining'}); ` +
        `${ROUNDS} round(s) after ${WARMUP} warm-up messages per server; timed from the first connection to the last 250`,
      `machine: ${availableParallelism()} cores (${cpus()[0]?.model.trim()}), node ${process.version}; servers and load generator share it`,
      `ours: ${MailroomMx.describe(mxOptions)}; Haraka ${HARAKA_VERSION} with our plugins (mailroom_lifeline, mailroom_nodelay, mailroom_limits, mailroom_rcpt, mailroom_queue)`,
      `stock Haraka ${HARAKA_VERSION}: fresh \`haraka -i\` installation, plugins rcpt_to.in_host_list + queue/discard, nodes=0, log level notice (as ours)`,
      postfix
        ? `Postfix ${postfix.version}: Debian package unpacked in .cache/postfix, master as root, daemons as ${postfix.owner}, own queue under ${tmpdir()}, default configuration except mydestination=${DOMAIN}, local_transport=discard:`
        : `Postfix: SKIPPED: ${postfixSkipped}`,
      `CPU: user + system time of each server's processes from the first connection until it is idle again (Postfix: queue empty, discard included); ` +
        `client: this process (load generator, and the DNS answers to our MX's SPF/DMARC look-ups)`,
    ].join('\n'),
  );

  const peers: Array<{ key: 'ours' | 'haraka' | 'postfix'; peer: Peer }> = [
    { key: 'ours', peer: ours },
    { key: 'haraka', peer: stock },
    ...(postfix ? [{ key: 'postfix' as const, peer: postfix }] : []),
  ];
  for (const { key, peer } of peers) {
    if (WARMUP <= 0) break;
    const warm = await sendLoad({
      host: peer.host,
      port: peer.port,
      messages: buildMessages(WARMUP, SIZE, { from: SENDER, domain: DOMAIN, tag: `warm-${key}` }),
      concurrency: Math.min(CONCURRENCY, WARMUP),
      pipelining: PIPELINING,
    });
    await peer.settle();
    if (warm.failures.count > 0)
      throw new Error(
        `${peer.name} refused warm-up messages: ${warm.failures.examples.join(' | ')}; ${peer.errors.join(' | ')}`,
      );
  }

  const samples: Record<'ours' | 'haraka' | 'postfix', Sample[]> = { ours: [], haraka: [], postfix: [] };
  for (let round = 1; round <= ROUNDS; round++) {
    const order = [...peers.slice(round - 1), ...peers.slice(0, round - 1)].slice(0, peers.length);
    const line: string[] = [];
    for (const { key, peer } of order) {
      await sleep(300);
      if (!peer.running) throw new Error(`${peer.name} is not running any more: ${peer.errors.join(' | ')}`);
      const result = await measure(peer, `r${round}-${key}`, key === 'ours' && MYSQL !== null);
      samples[key].push(result);
      line.push(`${peer.name} ${describe(result)}`);
    }
    console.log(`[round ${round}] ${line.join(' | ')}`);
  }

  // Our MX: everything that got a 250 is in the database and the blob store.
  const expected = (WARMUP > 0 ? WARMUP : 0) + samples.ours.reduce((sum, s) => sum + s.accepted, 0);
  await ours.stop();
  const stored = await ours.stored();
  const problems = Object.entries(samples).flatMap(([key, list]) =>
    list.flatMap((s, i) =>
      s.failures.count > 0
        ? [`${key} round ${i + 1}: ${s.failures.count} not accepted (${s.failures.examples.join(' | ')})`]
        : [],
    ),
  );
  if (stored.rows !== expected || stored.raw !== expected)
    problems.push(
      `our MX answered 250 for ${expected} messages but stored ${stored.rows} rows and ${stored.raw} raw messages readable`,
    );
  const logged = [ours, stock, ...(postfix ? [postfix] : [])].flatMap((peer) =>
    peer.errors.map((line) => `${peer.name}: ${line}`),
  );

  const rows: Array<{ label: string; list: Sample[]; whole: string }> = [
    {
      label: `Mailroom MX (Haraka + our plugins + bridge + spool fsync + ${MYSQL ? 'MariaDB' : 'SQLite'} commit)`,
      list: samples.ours,
      whole: '',
    },
    { label: 'stock Haraka (in_host_list + queue/discard)', list: samples.haraka, whole: 'Haraka alone' },
    ...(postfix
      ? [
          {
            label: `Postfix ${postfix.version} smtpd into its queue (discard)`,
            list: samples.postfix,
            whole: 'master and every daemon it started',
          },
        ]
      : []),
  ];
  console.log('\n| server | N | msgs/s | CPU ms/msg, server processes | of which | client CPU ms/msg | not accepted |');
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const { label, list, whole } of rows) {
    const of = (pick: (sample: Sample) => number, digits = 2) => cell(list.map(pick), digits);
    const parts = Object.keys(list[0]!.partsMs);
    const split = [
      ...(parts.length > 1 ? parts.map((part) => `${part} ${of((s) => s.partsMs[part]!)}`) : [whole]),
      ...(list[0]!.databaseMs !== null ? [`(MariaDB ${of((s) => s.databaseMs!)} besides)`] : []),
    ].join(', ');
    const failed = list.reduce((sum, s) => sum + s.failures.count, 0);
    console.log(
      `| ${label} | ${N} | ${of((s) => s.rate, 0)} | ${of((s) => s.cpuMs)} | ${split} | ${of((s) => s.clientMs)} | ${failed} |`,
    );
  }
  if (!postfix) console.log(`| Postfix smtpd | - | skipped: ${postfixSkipped} | | | | |`);

  const valid = problems.length === 0;
  const ratioRow = (label: string, against: Sample[], target: number) => {
    const rates = samples.ours.map((s, i) => s.rate / against[i]!.rate);
    const cpu = samples.ours.map((s, i) => s.cpuMs / against[i]!.cpuMs);
    const verdict = !valid ? 'n/a (run not valid, see below)' : median(rates) >= target ? 'met' : 'NOT met';
    return `| ${label} | ${cell(rates, 2, 'x')} | >= ${target}x | ${verdict} | ${cell(cpu, 1, 'x')} |`;
  };
  console.log('\n| ours against | messages/s ratio | target | | CPU per message ratio |');
  console.log('| --- | --- | --- | --- | --- |');
  console.log(ratioRow('stock Haraka discard', samples.haraka, TARGETS.haraka));
  console.log(
    postfix
      ? ratioRow('Postfix smtpd', samples.postfix, TARGETS.postfix)
      : `| Postfix smtpd | n/a | >= ${TARGETS.postfix}x | n/a (Postfix skipped: ${postfixSkipped}) | n/a |`,
  );
  // Issue 37's goals: the figure before, the figure now, and how far now is from the goal.
  const goalRow = (label: string, against: Sample[] | null, target: number, today: number) => {
    if (!against) return `| ours / ${label} msgs/s >= ${target}x | ${today}x | n/a (skipped) | n/a |`;
    const now = median(samples.ours.map((s, i) => s.rate / against[i]!.rate));
    return `| ours / ${label} msgs/s >= ${target}x | ${today}x | ${now.toFixed(2)}x | ${(now / target).toFixed(2)} |`;
  };
  console.log('\n| goal (issue 37) | today | now | now / goal (>= 1 is met; higher is better) |');
  console.log('| --- | --- | --- | --- |');
  console.log(goalRow('stock Haraka (discard)', samples.haraka, TARGETS.haraka, TODAY.haraka));
  console.log(goalRow('Postfix smtpd', postfix ? samples.postfix : null, TARGETS.postfix, TODAY.postfix));
  console.log(
    `\nmedians of ${ROUNDS} round(s) (lowest-highest in parentheses; ratios are per round, ours against the other in the same round). ` +
      `Our MX stored what it accepted: ${stored.rows} received emails and ${stored.raw} raw messages for ${expected} 250s (warm-up included).`,
  );
  if (!valid) console.log(`RUN NOT VALID:\n  ${problems.join('\n  ')}`);
  if (logged.length > 0) console.log(`errors the servers logged:\n  ${logged.join('\n  ')}`);
} finally {
  await cleanUp();
}
