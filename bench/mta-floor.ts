/**
 * What the parts the MTA issue prescribes cost alone, per message, on this machine: the RSA-2048
 * signature (OpenSSL through node:crypto) and the SMTP client (Mailroom's SmtpSession, which is
 * nodemailer's SMTP connection) sending ready-made messages to the same smtp-sink as bench:mta,
 * over as many connections as the worker uses, with no queue, no database and no signing. With
 * bench:mta's MariaDB figure these give a lower bound of Mailroom's CPU per message, whatever the
 * rest of the worker does; `machine budget` is the CPU per message at which this machine's cores,
 * all busy, would deliver at RATE messages a second (give Postfix's rate from bench:mta).
 *
 *   node --max-semi-space-size=64 --import tsx bench/mta-floor.ts
 *   N (4000), SIZE (4096), CONNECTIONS (20, mta.perDestinationConcurrency), RATE (optional)
 */
import { availableParallelism } from 'node:os';
import { loadConfig } from '../lib/config/load-config.js';
import { SmtpSession } from '../mta/delivery/smtp-session.js';
import { bodyOfSize } from './mta-message.js';
import { SinkProcess } from './mta-sink.js';
import { cpuSeconds } from './cpu-ticks.js';
import { rsaSignatureMs } from './rsa-signature-cpu.js';

const N = Number(process.env.N ?? 4000);
const SIZE = Number(process.env.SIZE ?? 4096);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 20);
const RATE = process.env.RATE ? Number(process.env.RATE) : undefined;
const WARMUP = 500;

const { mta } = loadConfig({ MAILROOM_CONFIG: '', MAILROOM_ENV: 'test' });
const message = Buffer.from(
  `From: bench@example.test\r\nTo: rcpt@sink.test\r\nSubject: floor\r\nMessage-ID: <floor@example.test>\r\n\r\n${bodyOfSize(SIZE)}\r\n`,
);

const sink = await SinkProcess.start('127.0.0.10');
try {
  const sessions = await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      const opened = await SmtpSession.open({
        address: sink.host,
        mxHost: 'mx.sink.test',
        port: sink.port,
        localAddress: '127.0.0.2',
        helo: 'floor.example.test',
        tls: 'opportunistic',
        verifyEnforced: false,
        connectTimeoutMs: mta.connectTimeoutMs,
        greetingTimeoutMs: mta.greetingTimeoutMs,
        socketTimeoutMs: mta.socketTimeoutMs,
        transcriptMaxBytes: mta.transcriptMaxBytes,
      });
      if ('error' in opened) throw new Error(`could not connect to the sink: ${JSON.stringify(opened.error)}`);
      return opened.session;
    }),
  );

  /** `count` messages spread over the connections, each connection sending one after another. */
  const sendAll = async (count: number) => {
    let left = count;
    await Promise.all(
      sessions.map(async (session) => {
        while (left > 0) {
          left--;
          const result = await session.send({ from: 'bounce@example.test', to: ['rcpt@sink.test'] }, message);
          if (result.kind !== 'sent' || result.accepted.length !== 1)
            throw new Error(`the sink refused a message: ${JSON.stringify(result)}`);
          // The worker keeps each attempt's transcript; taking it is part of the cost.
          session.transcript.take();
        }
      }),
    );
  };

  await sendAll(WARMUP);
  const client = process.cpuUsage();
  const sinkBefore = cpuSeconds(['smtp-sink']);
  const started = performance.now();
  await sendAll(N);
  const seconds = (performance.now() - started) / 1000;
  const clientUsed = process.cpuUsage(client);
  const perMessageMs = (cpuSecondsTotal: number) => (cpuSecondsTotal * 1000) / N;
  const smtpClientMs = perMessageMs((clientUsed.user + clientUsed.system) / 1e6);
  const sinkMs = perMessageMs(cpuSeconds(['smtp-sink']) - sinkBefore);
  const signatureMs = rsaSignatureMs();
  for (const session of sessions) session.close();

  console.log(
    `${N} messages of ${message.length} bytes over ${CONNECTIONS} connections: ${(N / seconds).toFixed(0)}/s`,
  );
  console.log(
    `CPU ms per message: SMTP client (SmtpSession, nodemailer) ${smtpClientMs.toFixed(2)}, sink ${sinkMs.toFixed(2)}, one RSA-2048 signature ${signatureMs.toFixed(2)}`,
  );
  console.log(`sum, before any queue, database or other work: ${(smtpClientMs + sinkMs + signatureMs).toFixed(2)} ms`);
  if (RATE)
    console.log(
      `machine budget at ${RATE}/s with all ${availableParallelism()} cores busy: ${((availableParallelism() * 1000) / RATE).toFixed(2)} ms per message`,
    );
} finally {
  await sink.stop();
}
