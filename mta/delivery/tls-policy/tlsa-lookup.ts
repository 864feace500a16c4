import { randomInt } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { isIP } from 'node:net';
import dnsPacket from 'dns-packet';
import { rcodeName } from '../../../lib/dns/dns-codec.js';
import type { TlsaRecord } from './tlsa-match.js';

export type TlsaResult =
  /** Records the validating resolver authenticated (AD bit): DANE applies. */
  | { kind: 'secure'; records: TlsaRecord[] }
  /** No records, or records without AD (unsigned zone, or a resolver that does not validate): no DANE. */
  | { kind: 'none'; detail: string }
  /** The resolver failed or did not answer: whether DANE applies is unknown. */
  | { kind: 'temporary'; detail: string };

export type TlsaLookup = (mxHost: string) => Promise<TlsaResult>;

const AD = dnsPacket.AUTHENTIC_DATA;
const TRUNCATED = 1 << 9;

/**
 * TLSA look-ups for `_25._tcp.<mx host>` over UDP to the configured validating resolvers, with
 * the DO bit set (RFC 7672 2.2): only an answer carrying the AD bit counts, since the resolver
 * vouches with it that DNSSEC validated the records. Node's resolver cannot ask for the bit, so
 * this speaks DNS itself. Resolvers are tried in order until one answers.
 */
export function createTlsaLookup(options: { resolvers: string[]; timeoutMs: number }): TlsaLookup {
  return async (mxHost) => {
    const name = `_25._tcp.${mxHost.toLowerCase().replace(/\.$/, '')}`;
    let last = 'no resolver configured';
    for (const resolver of options.resolvers) {
      const answer = await query(resolver, name, options.timeoutMs).catch((err: Error) => err);
      if (answer instanceof Error) {
        last = `${resolver}: ${answer.message}`;
        continue;
      }
      return interpret(name, answer);
    }
    return { kind: 'temporary', detail: `TLSA look-up for ${name} failed (${last})` };
  };
}

function interpret(name: string, answer: dnsPacket.Packet): TlsaResult {
  const flags = answer.flags ?? 0;
  const rcode = flags & 0xf;
  if (rcode !== 0 && rcode !== 3) return { kind: 'temporary', detail: `TLSA look-up for ${name}: ${rcodeName(rcode)}` };
  if (flags & TRUNCATED) return { kind: 'temporary', detail: `TLSA answer for ${name} truncated` };
  const records = (answer.answers ?? [])
    .filter((a): a is dnsPacket.TlsaAnswer => a.type === 'TLSA' && a.name.toLowerCase() === name)
    .map((a) => ({
      usage: a.data.usage,
      selector: a.data.selector,
      matchingType: a.data.matchingType,
      data: Buffer.from(a.data.certificate),
    }));
  if (records.length === 0) return { kind: 'none', detail: `no TLSA records at ${name}` };
  if (!(flags & AD)) return { kind: 'none', detail: `TLSA records at ${name} are not DNSSEC-authenticated` };
  return { kind: 'secure', records };
}

function query(resolver: string, name: string, timeoutMs: number): Promise<dnsPacket.Packet> {
  const { host, port } = splitServer(resolver);
  const id = randomInt(0, 65536);
  const message = dnsPacket.encode({
    type: 'query',
    id,
    flags: dnsPacket.RECURSION_DESIRED | AD,
    questions: [{ type: 'TLSA', name, class: 'IN' }],
    additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 4096, flags: dnsPacket.DNSSEC_OK } as dnsPacket.Answer],
  });
  return new Promise((resolve, reject) => {
    const socket = createSocket(isIP(host) === 6 ? 'udp6' : 'udp4');
    const done = (err: Error | null, packet?: dnsPacket.Packet) => {
      clearTimeout(timer);
      socket.close();
      if (err) reject(err);
      else resolve(packet!);
    };
    const timer = setTimeout(() => done(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    socket.on('error', (err) => done(err));
    socket.on('message', (reply) => {
      try {
        const packet = dnsPacket.decode(reply);
        if (packet.id === id) done(null, packet);
      } catch {
        // Not an answer to us: keep waiting for one until the time-out.
      }
    });
    socket.send(message, port, host);
  });
}

/** "127.0.0.1:53", "[::1]:53", "9.9.9.9" (port 53). */
export function splitServer(server: string): { host: string; port: number } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(server);
  if (bracketed) return { host: bracketed[1]!, port: Number(bracketed[2] ?? 53) };
  if (isIP(server)) return { host: server, port: 53 };
  const colon = server.lastIndexOf(':');
  return colon > 0
    ? { host: server.slice(0, colon), port: Number(server.slice(colon + 1)) }
    : { host: server, port: 53 };
}
