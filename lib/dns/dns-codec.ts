import dnsPacket from 'dns-packet';

/**
 * dns-packet's per-part codecs (names, questions, records, RDATA by type). The package exports
 * them but its type definitions declare only whole-packet encode/decode; DNS UPDATE needs the
 * parts, because a whole packet cannot carry class NONE or an empty RDATA of a typed record.
 */
type Encoder<T> = ((value: T, buf?: Buffer, offset?: number) => Buffer) & { bytes: number };
type Decoder<T> = ((buf: Buffer, offset?: number) => T) & { bytes: number };
type Codec<T> = { encode: Encoder<T>; decode: Decoder<T>; encodingLength(value: T): number };

export type DecodedRecord = { name: string; type: string; class: string; ttl: number; data: unknown };

const parts = dnsPacket as unknown as {
  name: Codec<string>;
  question: Codec<{ name: string; type: string; class: string }>;
  answer: Codec<DecodedRecord>;
  record(type: string): Codec<unknown>;
};

export const nameCodec = parts.name;
export const questionCodec = parts.question;
export const recordCodec = parts.answer;
/** The RDATA codec of a record type (TXT, MX, CNAME...). */
export const rdataCodec = (type: string) => parts.record(type);

/** A name in canonical wire form (lower case, uncompressed): what TSIG MACs and UPDATE sections carry. */
export function wireName(name: string): Buffer {
  return nameCodec.encode(name.toLowerCase().replace(/\.$/, ''));
}

export function uint16(value: number): Buffer {
  const buf = Buffer.alloc(2);
  buf.writeUInt16BE(value);
  return buf;
}

export function uint32(value: number): Buffer {
  const buf = Buffer.alloc(4);
  buf.writeUInt32BE(value);
  return buf;
}

export const RCODES = [
  'NOERROR',
  'FORMERR',
  'SERVFAIL',
  'NXDOMAIN',
  'NOTIMP',
  'REFUSED',
  'YXDOMAIN',
  'YXRRSET',
  'NXRRSET',
  'NOTAUTH',
  'NOTZONE',
] as const;

export const rcodeName = (code: number): string => RCODES[code] ?? `RCODE${code}`;
