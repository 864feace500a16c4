/**
 * MTA benchmark: N messages of 4 KB and of 50 KB from a durable queue to a local SMTP sink, by
 * Mailroom (MariaDB queue, RSA-2048 DKIM signing, the delivery worker in this process) and, in
 * the same run, by Postfix relaying the same messages to the same sink (its own instance, queue
 * on the same disk, no DKIM). Both are timed from "all N durably queued" to "all N accepted by
 * the sink" (Mailroom: until every delivery is also settled `delivered` in the database).
 *
 *   npm run bench:mta   (as root: installs Postfix from the Debian packages if it is missing;
 *                        MariaDB on 127.0.0.1:3306 as root, Redis on 127.0.0.1:6379)
 *   BENCH_MTA_TOTAL (2000), BENCH_MTA_SIZES (4096,51200), BENCH_MTA_ROUNDS (3, medians printed),
 *   BENCH_MTA_WARMUP (500 messages each side delivers untimed first; Postfix only in hold mode),
 *   BENCH_MTA_POSTFIX_MODE (hold | maildrop, see postfix-relay.ts), BENCH_MTA_PROCESSES (0: the
 *   worker in this process; n: n `mailroom mta` processes), BENCH_MTA_CONFIG (JSON merged into the
 *   mta section, for experiments; printed with the conditions)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { loadConfig } from '../lib/config/load-config.js';
import { TestDnsServer } from '../test/helpers/dns-server.js';
import { cpuSeconds, machineCeilingPerSecond, POSTFIX_PROCESSES } from './cpu-ticks.js';
import { benchMtaOverrides, MailroomBench } from './mta-mailroom.js';
import { bodyOfSize } from './mta-message.js';
import { missingMtaNodeOptions, MTA_NODE_OPTIONS } from './mta-node-options.js';
import { SinkProcess } from './mta-sink.js';
import { ensurePostfix } from './postfix-install.js';
import { PostfixRelay, type BenchMessage, type PostfixMode } from './postfix-relay.js';
import { rsaSignatureMs } from './rsa-signature-cpu.js';

const TOTAL = Number(process.env.BENCH_MTA_TOTAL ?? 2000);
const SIZES = (process.env.BENCH_MTA_SIZES ?? '4096,51200').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_MTA_ROUNDS ?? 3);
/** Messages each side delivers untimed first, in the same round (see MailroomBench.warmUp, warmUpPostfix). */
const WARMUP = Number(process.env.BENCH_MTA_WARMUP ?? 500);
const MODE = (process.env.BENCH_MTA_POSTFIX_MODE ?? 'hold') as PostfixMode;
/** 0: the delivery worker runs in the benchmark process; n: n `mailroom mta` processes. */
const PROCESSES = Number(process.env.BENCH_MTA_PROCESSES ?? 0);
/**
 * Also time Mailroom with traffic shaping off, in the same round (no rule limits the sink's
 * domain, so shaping costs only its checks): the figure must hold within 5% with it on.
 * BENCH_MTA_SHAPING_PEER=0 skips it.
 */
const SHAPING_PEER = process.env.BENCH_MTA_SHAPING_PEER !== '0';
const SERVER = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';
const REDIS = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const SINK_HOST = '127.0.0.10';
const EGRESS = '127.0.0.2';

type Sample = {
  size: number;
  bytes: number;
  mailroom: number;
  postfix: number;
  mailroomCpuMs: number;
  postfixCpuMs: number;
  /** Mailroom with shaping off (the peer of the default run, which has it on); 0 when not run. */
  unshaped: number;
  unshapedCpuMs: number;
};

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const spread = (values: number[], digits = 0) =>
  `${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)}`;
const perMessageMs = (cpuSeconds: number) => (cpuSeconds * 1000) / TOTAL;
const CORES = availableParallelism();
/** Mailroom's rate with every core busy at its measured CPU per message, over Postfix's rate. */
const ceilingRatio = (s: Sample) => machineCeilingPerSecond(s.mailroomCpuMs) / s.postfix;

/** Postfix's run: queued on hold (not timed), then timed from the release until the sink has every message. */
async function postfix(
  messages: BenchMessage[],
  sink: SinkProcess,
): Promise<{ seconds: number; cpu: { postfix: number; sink: number } }> {
  const relay = await PostfixRelay.start(mkdtempSync(join(tmpdir(), 'mailroom-bench-postfix-')), sink, EGRESS, MODE);
  try {
    await warmUpPostfix(relay, messages.slice(0, WARMUP), sink);
    await relay.inject(messages);
    const before = sink.received;
    const cpuBefore = { postfix: cpuSeconds(POSTFIX_PROCESSES), sink: cpuSeconds(['smtp-sink']) };
    const started = performance.now();
    await relay.release();
    await sink.waitFor(before + messages.length);
    const seconds = (performance.now() - started) / 1000;
    const cpu = {
      postfix: cpuSeconds(POSTFIX_PROCESSES) - cpuBefore.postfix,
      sink: cpuSeconds(['smtp-sink']) - cpuBefore.sink,
    };
    await relay.waitEmpty();
    await new Promise((resolve) => setTimeout(resolve, 200));
    if (sink.received - before !== messages.length)
      throw new Error(
        `Postfix run is not valid: the sink received ${sink.received - before} messages for ${messages.length}`,
      );
    return { seconds, cpu };
  } finally {
    await relay.stop();
  }
}

/**
 * Hold mode: the first messages once through the instance, untimed, so the measured run finds
 * its delivery processes started (as on a server that has been running). Maildrop mode has
 * no held queue to refill (pickup stays on once released): no warm-up there.
 */
async function warmUpPostfix(relay: PostfixRelay, messages: BenchMessage[], sink: SinkProcess): Promise<void> {
  if (MODE !== 'hold' || messages.length === 0) return;
  const before = sink.received;
  await relay.inject(messages);
  await relay.release();
  await sink.waitFor(before + messages.length);
  await relay.waitEmpty();
}

/** Mailroom alone with shaping off: messages per second and CPU ms per message. */
async function unshaped(round: number, size: number, sink: SinkProcess, dns: TestDnsServer) {
  const mailroom = await MailroomBench.start({
    server: SERVER,
    redis: REDIS,
    dns: dns.address,
    sink,
    egress: EGRESS,
    label: `${round}_${size}_unshaped`,
    mta: { shaping: { enabled: false } },
  });
  try {
    if (PROCESSES === 0) await mailroom.warmUp(WARMUP, bodyOfSize(size));
    await mailroom.accept(TOTAL, bodyOfSize(size));
    const before = sink.received;
    const result = await mailroom.deliver(TOTAL, PROCESSES);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const problems = await mailroom.verify(TOTAL);
    if (sink.received - before !== TOTAL) problems.push(`the sink received ${sink.received - before} messages`);
    if (problems.length > 0) throw new Error(`Mailroom (shaping off) run is not valid: ${problems.join('; ')}`);
    return {
      rate: TOTAL / result.seconds,
      cpuMs: perMessageMs(result.cpu.mta + result.cpu.database + result.cpu.sink),
    };
  } finally {
    await mailroom.close();
  }
}

/** One size, one round: accept in Mailroom, then time both (alternating which goes first). */
async function measure(round: number, size: number, sink: SinkProcess, dns: TestDnsServer): Promise<Sample> {
  // The shaping peer runs first in odd rounds and last in even ones, as Postfix does.
  const peerFirst = SHAPING_PEER && round % 2 === 1 ? await unshaped(round, size, sink, dns) : null;
  const mailroom = await MailroomBench.start({
    server: SERVER,
    redis: REDIS,
    dns: dns.address,
    sink,
    egress: EGRESS,
    label: `${round}_${size}`,
  });
  try {
    if (PROCESSES === 0) await mailroom.warmUp(WARMUP, bodyOfSize(size));
    const messages = await mailroom.accept(TOTAL, bodyOfSize(size));
    const bytes = messages.reduce((sum, m) => sum + m.mime.length, 0) / messages.length;
    const other = round % 2 === 0 ? await postfix(messages, sink) : null;
    const before = sink.received;
    const result = await mailroom.deliver(TOTAL, PROCESSES);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const problems = await mailroom.verify(TOTAL);
    if (sink.received - before !== TOTAL)
      problems.push(`the sink received ${sink.received - before} messages for ${TOTAL}`);
    if (result.signedKeyBits !== 2048) problems.push(`signing key: RSA ${result.signedKeyBits} bits`);
    if (problems.length > 0) throw new Error(`Mailroom run is not valid: ${problems.join('; ')}`);
    const { seconds, cpu } = other ?? (await postfix(messages, sink));
    const peer = peerFirst ?? (SHAPING_PEER ? await unshaped(round, size, sink, dns) : null);
    const sample: Sample = {
      unshaped: peer?.rate ?? 0,
      unshapedCpuMs: peer?.cpuMs ?? 0,
      size,
      bytes,
      mailroom: TOTAL / result.seconds,
      postfix: TOTAL / seconds,
      mailroomCpuMs: perMessageMs(result.cpu.mta + result.cpu.database + result.cpu.sink),
      postfixCpuMs: perMessageMs(cpu.postfix + cpu.sink),
    };
    const ms = (value: number) => perMessageMs(value).toFixed(2);
    console.log(
      `[round ${round}] ${(bytes / 1024).toFixed(1)} KB x ${TOTAL}: Mailroom ${sample.mailroom.toFixed(0)}/s (${result.seconds.toFixed(2)} s; CPU ms/msg: mta ${ms(result.cpu.mta)}, MariaDB ${ms(result.cpu.database)}, sink ${ms(result.cpu.sink)}), ` +
        `Postfix ${sample.postfix.toFixed(0)}/s (${seconds.toFixed(2)} s; CPU ms/msg: postfix ${ms(cpu.postfix)}, sink ${ms(cpu.sink)}), ratio ${(sample.mailroom / sample.postfix).toFixed(2)}` +
        (peer
          ? `; shaping off ${peer.rate.toFixed(0)}/s (CPU ms/msg ${peer.cpuMs.toFixed(2)}), on/off ${(sample.mailroom / peer.rate).toFixed(3)}`
          : ''),
    );
    return sample;
  } finally {
    await mailroom.close();
  }
}

async function conditions(): Promise<string> {
  const admin = await mysql.createConnection({ uri: `${SERVER}/` });
  const [flush] = (await admin.query(`SHOW VARIABLES LIKE 'innodb_flush_log_at_trx_commit'`)) as unknown as [
    Array<{ Value: string }>,
  ];
  const [version] = (await admin.query('SELECT VERSION() AS v')) as unknown as [Array<{ v: string }>];
  await admin.end();
  const postfixVersion = execFileSync('/usr/sbin/postconf', ['-d', '-h', 'mail_version'], { encoding: 'utf8' }).trim();
  const overrides = benchMtaOverrides();
  const { mta } = { mta: { ...loadConfig({ MAILROOM_CONFIG: '', MAILROOM_ENV: 'test' }).mta, ...overrides } };
  const missing = missingMtaNodeOptions();
  return [
    `MTA benchmark: ${TOTAL} messages per size, ${ROUNDS} round(s), one recipient each, all to one destination domain; ${WARMUP} warm-up messages delivered untimed first by each side${MODE === 'hold' ? '' : ' (Mailroom only: no warm-up for Postfix from its maildrop)'}${PROCESSES > 0 ? ' (none for `mailroom mta` processes: they start fresh)' : ''}`,
    `machine: ${CORES} cores (${cpus()[0]?.model.trim()}), MariaDB ${version[0]?.v} with innodb_flush_log_at_trx_commit=${flush[0]?.Value}, Postfix ${postfixVersion}`,
    `sink: Postfix smtp-sink on ${SINK_HOST} (one process for both sides); egress ${EGRESS}; Postfix queue mode: ${MODE}`,
    `Mailroom: ${Object.keys(overrides).length > 0 ? `mta configuration with BENCH_MTA_CONFIG ${JSON.stringify(overrides)}` : 'default mta configuration'} (concurrency ${mta.concurrency}, ${mta.perDestinationConcurrency} connections per destination), ${PROCESSES > 0 ? `${PROCESSES} \`mailroom mta\` process(es)` : 'delivery worker in the benchmark process'}, RSA-2048 DKIM signing, settled in MariaDB`,
    `Postfix: default configuration relaying to the sink (relayhost), no DKIM; timed from ${MODE === 'hold' ? 'the release of the held queue' : 'enabling pickup of the maildrop'}`,
    `node options of the MTA: ${MTA_NODE_OPTIONS.join(' ')} (as systemd/mailroom-mta.service)${PROCESSES === 0 && missing.length > 0 ? `; NOT given to this process, which runs the worker: ${missing.join(' ')} (start it with npm run bench:mta)` : ''}`,
    `one RSA-2048 signature on this machine: ${rsaSignatureMs().toFixed(2)} ms of CPU (part of Mailroom's CPU per message below; Postfix signs nothing)`,
  ].join('\n');
}

const sink = await SinkProcess.start(SINK_HOST);
process.on('exit', () => void sink.stop());
const dns = await TestDnsServer.start();
dns.add(
  { type: 'MX', name: 'sink.test', exchange: 'mx.sink.test', priority: 10 },
  { type: 'A', name: 'mx.sink.test', address: SINK_HOST },
);
try {
  ensurePostfix();
  console.log(await conditions());
  const samples: Sample[] = [];
  for (let round = 1; round <= ROUNDS; round++)
    for (const size of SIZES) samples.push(await measure(round, size, sink, dns));
  console.log(
    '\n| size | N | Mailroom msgs/s | Postfix msgs/s | ratio Mailroom/Postfix | CPU ms/msg Mailroom (with MariaDB, sink) | CPU ms/msg Postfix (with sink) | ceiling ratio, all cores busy |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const size of SIZES) {
    const of = samples.filter((s) => s.size === size);
    const ratios = of.map((s) => s.mailroom / s.postfix);
    const cell = (values: number[], digits = 0) => `${median(values).toFixed(digits)} (${spread(values, digits)})`;
    console.log(
      `| ${(median(of.map((s) => s.bytes)) / 1024).toFixed(1)} KB | ${TOTAL} | ${cell(of.map((s) => s.mailroom))} | ${cell(of.map((s) => s.postfix))} | ${cell(ratios, 2)} ` +
        `| ${cell(
          of.map((s) => s.mailroomCpuMs),
          2,
        )} | ${cell(
          of.map((s) => s.postfixCpuMs),
          2,
        )} | ${cell(of.map(ceilingRatio), 2)} |`,
    );
  }
  console.log(
    `ceiling: the messages per second ${CORES} cores could deliver at Mailroom's CPU per message (with MariaDB's and the sink's) if every core did nothing else, ` +
      "over Postfix's measured rate; only less CPU per message raises it, not more processes or connections",
  );
  if (SHAPING_PEER) {
    console.log(
      '\n| size | Mailroom, shaping on (default) msgs/s | shaping off msgs/s | ratio on/off | CPU ms/msg on | CPU ms/msg off |',
    );
    console.log('| --- | --- | --- | --- | --- | --- |');
    for (const size of SIZES) {
      const of = samples.filter((s) => s.size === size);
      const cell = (values: number[], digits = 0) => `${median(values).toFixed(digits)} (${spread(values, digits)})`;
      console.log(
        `| ${(median(of.map((s) => s.bytes)) / 1024).toFixed(1)} KB | ${cell(of.map((s) => s.mailroom))} | ${cell(of.map((s) => s.unshaped))} ` +
          `| ${cell(
            of.map((s) => s.mailroom / s.unshaped),
            3,
          )} | ${cell(
            of.map((s) => s.mailroomCpuMs),
            2,
          )} | ${cell(
            of.map((s) => s.unshapedCpuMs),
            2,
          )} |`,
      );
    }
    console.log(
      'shaping on: the default (rules for the large providers; none matches the sink domain, so none limits it)',
    );
  }
  console.log(
    `medians of ${ROUNDS} round(s); in parentheses the lowest and highest round. CPU: user + system time of the processes during the timed run (MariaDB's includes any other client it served meanwhile)`,
  );
} finally {
  await dns.close();
  await sink.stop();
}
