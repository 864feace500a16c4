import { createHmac, timingSafeEqual } from 'node:crypto';
import { nameCodec, questionCodec, recordCodec, uint16, wireName } from './dns-codec.js';

/**
 * TSIG (RFC 8945) with HMAC-SHA256: signs a request and checks the server's answer. dns-packet
 * has no TSIG record, so its RDATA is written here; names go through dns-packet's name codec in
 * canonical form (lower case, never compressed), which is what the MAC covers.
 */
export type TsigKey = { name: string; algorithm: 'hmac-sha256'; secret: Buffer };

const TYPE_TSIG = 250;
const CLASS_ANY = 255;
/** Seconds of clock difference the server accepts (RFC 8945 recommends 300). */
const FUDGE = 300;

export const TSIG_ERRORS: Record<number, string> = { 16: 'BADSIG', 17: 'BADKEY', 18: 'BADTIME', 22: 'BADTRUNC' };

function uint48(seconds: number): Buffer {
  const buf = Buffer.alloc(6);
  buf.writeUIntBE(seconds, 0, 6);
  return buf;
}

/** The TSIG variables the MAC covers after the message (RFC 8945 4.3.3). */
function variables(key: TsigKey, timeSigned: number, error: number, other: Buffer): Buffer {
  return Buffer.concat([
    wireName(key.name),
    uint16(CLASS_ANY),
    Buffer.alloc(4), // TTL 0
    wireName(key.algorithm),
    uint48(timeSigned),
    uint16(FUDGE),
    uint16(error),
    uint16(other.length),
    other,
  ]);
}

function hmac(key: TsigKey, ...parts: Buffer[]): Buffer {
  const mac = createHmac('sha256', key.secret);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

/** The request with its TSIG record appended (ARCOUNT + 1), and the MAC the answer's MAC chains to. */
export function signRequest(message: Buffer, key: TsigKey, now: Date): { signed: Buffer; mac: Buffer } {
  const timeSigned = Math.floor(now.getTime() / 1000);
  const mac = hmac(key, message, variables(key, timeSigned, 0, Buffer.alloc(0)));
  const rdata = Buffer.concat([
    wireName(key.algorithm),
    uint48(timeSigned),
    uint16(FUDGE),
    uint16(mac.length),
    mac,
    message.subarray(0, 2), // original id
    uint16(0), // error
    uint16(0), // other len
  ]);
  const record = Buffer.concat([
    wireName(key.name),
    uint16(TYPE_TSIG),
    uint16(CLASS_ANY),
    Buffer.alloc(4),
    uint16(rdata.length),
    rdata,
  ]);
  const signed = Buffer.concat([message, record]);
  signed.writeUInt16BE(message.readUInt16BE(10) + 1, 10);
  return { signed, mac };
}

export type TsigCheck =
  | { ok: true }
  /** `error`: the TSIG error the server reported (BADKEY, BADSIG, BADTIME), or why we reject its answer. */
  | { ok: false; error: string };

/** Offset where the last additional record starts, walking the sections with dns-packet's decoders. */
function lastRecordOffset(buf: Buffer): number | undefined {
  const counts = [4, 6, 8, 10].map((at) => buf.readUInt16BE(at));
  if (counts[3] === 0) return undefined;
  let offset = 12;
  for (let i = 0; i < counts[0]!; i++) {
    questionCodec.decode(buf, offset);
    offset += questionCodec.decode.bytes;
  }
  const records = counts[1]! + counts[2]! + counts[3]!;
  for (let i = 0; i < records - 1; i++) {
    recordCodec.decode(buf, offset);
    offset += recordCodec.decode.bytes;
  }
  return offset;
}

/**
 * Checks the answer's TSIG against the request's MAC (RFC 8945 5.3). An answer without one, or
 * with a wrong MAC, is not the server's word: the caller treats it as no answer.
 */
export function verifyResponse(response: Buffer, requestMac: Buffer, key: TsigKey): TsigCheck {
  const start = lastRecordOffset(response);
  if (start === undefined) return { ok: false, error: 'UNSIGNED' };
  const record = recordCodec.decode(response, start);
  if (record.type !== 'UNKNOWN_250' && record.type !== 'TSIG') return { ok: false, error: 'UNSIGNED' };
  // The record's RDATA, read in place: dns-packet decodes an unknown type as raw bytes.
  const rdata = record.data as Buffer;
  const algorithm = nameCodec.decode(rdata, 0);
  let at = nameCodec.decode.bytes;
  const timeSigned = rdata.readUIntBE(at, 6);
  const macSize = rdata.readUInt16BE(at + 8);
  const mac = rdata.subarray(at + 10, at + 10 + macSize);
  at += 10 + macSize;
  const originalId = rdata.readUInt16BE(at);
  const error = rdata.readUInt16BE(at + 2);
  const other = rdata.subarray(at + 6, at + 6 + rdata.readUInt16BE(at + 4));
  if (error !== 0) return { ok: false, error: TSIG_ERRORS[error] ?? `TSIG_ERROR_${error}` };
  if (algorithm.toLowerCase() !== key.algorithm) return { ok: false, error: 'BADALG' };
  const unsigned = Buffer.from(response.subarray(0, start));
  unsigned.writeUInt16BE(originalId, 0);
  unsigned.writeUInt16BE(unsigned.readUInt16BE(10) - 1, 10);
  const expected = hmac(
    key,
    uint16(requestMac.length),
    requestMac,
    unsigned,
    variables({ ...key, name: record.name }, timeSigned, error, other),
  );
  if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) return { ok: false, error: 'BADSIG' };
  return { ok: true };
}

/**
 * The base64 secret of a key file: either the bare secret or BIND's `tsig-keygen` output
 * (`key "name" { algorithm hmac-sha256; secret "..."; };`), so operators can share one file.
 */
export function parseTsigSecret(text: string): Buffer | undefined {
  const quoted = /secret\s+"([^"]+)"/.exec(text);
  const raw = (quoted ? quoted[1]! : text).replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+=*$/.test(raw)) return undefined;
  const secret = Buffer.from(raw, 'base64');
  return secret.length > 0 ? secret : undefined;
}
