import { randomInt } from 'node:crypto';
import { connect } from 'node:net';
import { rcodeName, rdataCodec, uint16, uint32, wireName } from './dns-codec.js';
import { signRequest, verifyResponse, type TsigKey } from './tsig.js';

/**
 * A DNS UPDATE client (RFC 2136) signed with TSIG (RFC 8945), over TCP: a domain's records
 * (a 2048-bit DKIM key among them) do not fit the 512 bytes of plain UDP, and TCP tells an
 * unreachable server apart at once instead of after a timeout.
 */
export type UpdateRecord = { name: string; type: RecordType; ttl: number; data: unknown };
export type RecordType = keyof typeof TYPE_CODES;

export type UpdateOperation =
  | { op: 'add'; record: UpdateRecord }
  /** Every record of this type at the name (class ANY). */
  | { op: 'delete_rrset'; name: string; type: RecordType }
  /** Exactly this record (class NONE): other records of the RRset stay. */
  | { op: 'delete_record'; record: Omit<UpdateRecord, 'ttl'> };

/** RFC 2136 2.4.3: the update applies only while no record of this type is at the name. */
export type Prerequisite = { rrsetAbsent: { name: string; type: RecordType } };

export type UpdateRequest = { zone: string; prerequisites?: Prerequisite[]; updates: UpdateOperation[] };
export type UpdateServer = { host: string; port: number; key: TsigKey; timeoutMs: number };
/**
 * The server's word: its RCODE, the TSIG error of an unsigned refusal (BADKEY, BADSIG,
 * BADTIME), and whether the answer carried a valid signature of our key.
 */
export type UpdateAnswer = { rcode: string; tsigError?: string; authenticated: boolean };

/** The server could not be reached, closed the connection, or did not answer in time. */
export class DnsServerUnreachableError extends Error {
  override readonly name = 'DnsServerUnreachableError';
}

const TYPE_CODES = { CNAME: 5, SOA: 6, MX: 15, TXT: 16 } as const;
const CLASS_IN = 1;
const CLASS_NONE = 254;
const CLASS_ANY = 255;
const OPCODE_UPDATE = 5;

function resourceRecord(name: string, type: RecordType, klass: number, ttl: number, data?: unknown): Buffer {
  // The RDATA codecs write the 2-byte RDLENGTH themselves; an empty RDATA is just a zero length.
  const rdata = data === undefined ? uint16(0) : rdataCodec(type).encode(data);
  return Buffer.concat([wireName(name), uint16(TYPE_CODES[type]), uint16(klass), uint32(ttl), rdata]);
}

function operationRecord(operation: UpdateOperation): Buffer {
  if (operation.op === 'add') {
    const { name, type, ttl, data } = operation.record;
    return resourceRecord(name, type, CLASS_IN, ttl, data);
  }
  if (operation.op === 'delete_rrset') return resourceRecord(operation.name, operation.type, CLASS_ANY, 0);
  const { name, type, data } = operation.record;
  return resourceRecord(name, type, CLASS_NONE, 0, data);
}

/** The unsigned UPDATE message: zone section, prerequisites, updates, no additional records. */
export function encodeUpdate(id: number, request: UpdateRequest): Buffer {
  const prerequisites = (request.prerequisites ?? []).map(({ rrsetAbsent }) =>
    resourceRecord(rrsetAbsent.name, rrsetAbsent.type, CLASS_NONE, 0),
  );
  const updates = request.updates.map(operationRecord);
  const header = Buffer.concat([
    uint16(id),
    uint16(OPCODE_UPDATE << 11),
    uint16(1),
    uint16(prerequisites.length),
    uint16(updates.length),
    uint16(0),
  ]);
  const zone = Buffer.concat([wireName(request.zone), uint16(TYPE_CODES.SOA), uint16(CLASS_IN)]);
  return Buffer.concat([header, zone, ...prerequisites, ...updates]);
}

/** Sends one signed UPDATE and waits for the server's answer. */
export async function sendUpdate(
  server: UpdateServer,
  request: UpdateRequest,
  now = new Date(),
): Promise<UpdateAnswer> {
  const id = randomInt(0, 0x10000);
  const { signed, mac } = signRequest(encodeUpdate(id, request), server.key, now);
  const response = await exchangeTcp(server, signed);
  if (response.length < 12 || response.readUInt16BE(0) !== id || !(response.readUInt16BE(2) & 0x8000))
    throw new DnsServerUnreachableError(`${server.host}:${server.port} answered something that is not our answer`);
  const rcode = rcodeName(response.readUInt16BE(2) & 0xf);
  const check = verifyResponse(response, mac, server.key);
  return check.ok ? { rcode, authenticated: true } : { rcode, tsigError: check.error, authenticated: false };
}

/** One request and its answer over TCP, each framed by a 2-byte length (RFC 1035 4.2.2). */
function exchangeTcp(server: UpdateServer, message: Buffer): Promise<Buffer> {
  const where = `${server.host}:${server.port}`;
  return new Promise((resolve, reject) => {
    const socket = connect({ host: server.host, port: server.port });
    let received = Buffer.alloc(0);
    const fail = (reason: string) => {
      socket.destroy();
      reject(new DnsServerUnreachableError(`DNS server ${where}: ${reason}`));
    };
    socket.setTimeout(server.timeoutMs, () => fail(`no answer within ${server.timeoutMs} ms`));
    socket.on('error', (err: NodeJS.ErrnoException) => fail(err.code ?? err.message));
    socket.on('connect', () => socket.write(Buffer.concat([uint16(message.length), message])));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 2 || received.length < 2 + received.readUInt16BE(0)) return;
      socket.end();
      resolve(received.subarray(2, 2 + received.readUInt16BE(0)));
    });
    socket.on('end', () => fail('closed the connection without an answer'));
  });
}
