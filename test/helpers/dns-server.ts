import { createSocket, type Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import dnsPacket from 'dns-packet';
import { reverseName } from '../../core/platform/doctor/reverse-names.js';

/**
 * A real DNS server on loopback whose zone the test declares: records are added and removed
 * per test, and `servfail` makes every answer SERVFAIL. The appliance's resolver is pointed at
 * it, so verification does real DNS look-ups over UDP.
 */
export type TestRecord =
  | { type: 'TXT'; name: string; value: string }
  | { type: 'MX'; name: string; exchange: string; priority?: number }
  | { type: 'CNAME'; name: string; value: string }
  | { type: 'SOA'; name: string }
  | { type: 'A'; name: string; address: string }
  | { type: 'AAAA'; name: string; address: string }
  | { type: 'PTR'; name: string; value: string }
  | { type: 'TLSA'; name: string; usage: number; selector: number; matchingType: number; data: Buffer };

export class TestDnsServer {
  private records: TestRecord[] = [];
  /** Names answered with the AD bit, as a validating resolver answers for a DNSSEC-signed zone. */
  readonly signed = new Set<string>();
  servfail = false;
  queries = 0;

  private constructor(private readonly socket: Socket) {
    socket.on('message', (message, remote) => {
      this.queries++;
      const reply = this.answer(message);
      if (reply) socket.send(reply, remote.port, remote.address);
    });
  }

  /** On a free UDP port of `host` (a loopback address; the cluster test's services address). */
  static async start(host = '127.0.0.1'): Promise<TestDnsServer> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, host, () => resolve()));
    return new TestDnsServer(socket);
  }

  /** host:port for MAILROOM_DNS_SERVERS. */
  get address(): string {
    const { address, port } = this.socket.address() as AddressInfo;
    return `${address}:${port}`;
  }

  add(...records: TestRecord[]): void {
    this.records.push(...records.map((r) => ({ ...r, name: r.name.toLowerCase() })));
  }

  /** The PTR records of `address` (replacing any it had); no names removes them. */
  setPtr(address: string, ...names: string[]): void {
    const name = reverseName(address);
    this.remove((record) => record.type === 'PTR' && record.name === name);
    this.add(...names.map((value) => ({ type: 'PTR' as const, name, value })));
  }

  remove(predicate: (record: TestRecord) => boolean): void {
    this.records = this.records.filter((record) => !predicate(record));
  }

  clear(): void {
    this.records = [];
    this.signed.clear();
    this.servfail = false;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }

  private answer(message: Buffer): Buffer | undefined {
    let query: dnsPacket.Packet;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return undefined;
    }
    const question = query.questions?.[0];
    if (!question) return undefined;
    const base = {
      id: query.id,
      type: 'response' as const,
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE,
      questions: [question],
    };
    if (this.servfail) return dnsPacket.encode({ ...base, flags: base.flags | 2 /* RCODE SERVFAIL */ });
    const name = question.name.toLowerCase();
    const atName = this.records.filter((r) => r.name === name);
    // A CNAME answers every type at its name, as a real server would.
    const matches = atName.filter((r) => r.type === question.type || (r.type === 'CNAME' && question.type !== 'CNAME'));
    const nameExists = atName.length > 0 || this.records.some((r) => r.name.endsWith(`.${name}`));
    const answers = matches.map((record) => toAnswer(record));
    const rcode = answers.length === 0 && !nameExists ? 3 /* NXDOMAIN */ : 0;
    const authentic = this.signed.has(name) ? dnsPacket.AUTHENTIC_DATA : 0;
    return dnsPacket.encode({ ...base, flags: base.flags | rcode | authentic, answers });
  }
}

function toAnswer(record: TestRecord): dnsPacket.Answer {
  const common = { name: record.name, ttl: 60, class: 'IN' as const };
  switch (record.type) {
    case 'TXT': {
      // Long values are split into 255-byte strings, as DKIM keys are in real zones.
      const chunks = record.value.match(/.{1,255}/g) ?? [''];
      return { ...common, type: 'TXT', data: chunks };
    }
    case 'MX':
      return { ...common, type: 'MX', data: { exchange: record.exchange, preference: record.priority ?? 10 } };
    case 'CNAME':
      return { ...common, type: 'CNAME', data: record.value };
    case 'PTR':
      return { ...common, type: 'PTR', data: record.value };
    case 'A':
      return { ...common, type: 'A', data: record.address };
    case 'AAAA':
      return { ...common, type: 'AAAA', data: record.address };
    case 'TLSA':
      return {
        ...common,
        type: 'TLSA',
        data: {
          usage: record.usage,
          selector: record.selector,
          matchingType: record.matchingType,
          certificate: record.data,
        },
      };
    case 'SOA':
      return {
        ...common,
        type: 'SOA',
        data: {
          mname: `ns1.${record.name}`,
          rname: `hostmaster.${record.name}`,
          serial: 1,
          refresh: 3600,
          retry: 600,
          expire: 86400,
          minimum: 60,
        },
      };
  }
}
