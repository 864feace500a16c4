import type { X509Certificate } from 'node:crypto';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';

/** One SMTP reply: its code and the text of each of its lines (RFC 5321 4.2.1). */
export type SmtpReply = { code: number; lines: string[] };

/** What an SMTP server answered, step by step, as the doctor reads it. */
export type EhloReport = {
  greeting: SmtpReply;
  ehlo: SmtpReply;
  /** EHLO keywords, upper case (STARTTLS, AUTH, SIZE...), and the AUTH mechanisms offered. */
  extensions: Set<string>;
  authMechanisms: string[];
};

/** EHLO keywords (first word of every line but the first) and the AUTH mechanisms. */
export function ehloExtensions(ehlo: SmtpReply): { extensions: Set<string>; authMechanisms: string[] } {
  const extensions = new Set<string>();
  let authMechanisms: string[] = [];
  for (const line of ehlo.lines.slice(1)) {
    const [keyword = '', ...params] = line.trim().split(/\s+/);
    extensions.add(keyword.toUpperCase());
    if (keyword.toUpperCase() === 'AUTH') authMechanisms = params.map((param) => param.toUpperCase());
  }
  return { extensions, authMechanisms };
}

/**
 * A client side of an SMTP conversation, enough to read what a server offers: replies are read
 * whole however the bytes arrive (a multi-line EHLO split across packets, or several replies
 * in one), and the plain socket can be upgraded by STARTTLS.
 */
export class SmtpProbeClient {
  private buffer = '';
  private lines: string[] = [];
  private replies: SmtpReply[] = [];
  private failure: Error | undefined;
  private wake: (() => void) | undefined;
  private readonly onData = (chunk: Buffer) => this.read(chunk);
  private readonly onEnd = () => this.fail(new Error('the server closed the connection'));
  private readonly onError = (err: Error) => this.fail(err);

  private constructor(
    private socket: Socket,
    private readonly timeoutMs: number,
  ) {
    this.attach(socket);
  }

  /** Connects (TCP, or TLS from the first byte for an implicit-TLS port). */
  static async open(
    target: { host: string; port: number; implicitTls?: boolean },
    timeoutMs: number,
  ): Promise<SmtpProbeClient> {
    const socket = await new Promise<Socket>((resolve, reject) => {
      const options = { host: target.host, port: target.port, timeout: timeoutMs };
      const s: Socket = target.implicitTls
        ? tlsConnect({ ...options, rejectUnauthorized: false }, () => resolve(s))
        : netConnect(options, () => resolve(s));
      s.once('error', reject);
      s.once('timeout', () => {
        s.destroy();
        reject(new Error(`no connection within ${timeoutMs} ms`));
      });
    });
    socket.setTimeout(0);
    return new SmtpProbeClient(socket, timeoutMs);
  }

  /** The next whole reply. */
  async reply(): Promise<SmtpReply> {
    const deadline = Date.now() + this.timeoutMs;
    for (;;) {
      const next = this.replies.shift();
      if (next) return next;
      if (this.failure) throw this.failure;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no reply within ${this.timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  async command(line: string): Promise<SmtpReply> {
    this.socket.write(`${line}\r\n`);
    return this.reply();
  }

  /** After a 220 to STARTTLS: the TLS handshake on the same connection (any certificate: it is reported, not trusted). */
  async upgrade(servername?: string): Promise<void> {
    this.detach(this.socket);
    const plain = this.socket;
    this.socket = await new Promise<TLSSocket>((resolve, reject) => {
      const secure: TLSSocket = tlsConnect({ socket: plain, servername, rejectUnauthorized: false }, () =>
        resolve(secure),
      );
      secure.once('error', reject);
      setTimeout(() => reject(new Error(`no TLS handshake within ${this.timeoutMs} ms`)), this.timeoutMs).unref();
    });
    this.attach(this.socket);
  }

  /** The certificate the server presented (TLS only). */
  peerCertificate(): X509Certificate | undefined {
    return (this.socket as TLSSocket).getPeerX509Certificate?.();
  }

  close(): void {
    if (!this.failure) this.socket.end('QUIT\r\n');
    this.socket.destroy();
  }

  private attach(socket: Socket): void {
    socket.on('data', this.onData);
    socket.on('end', this.onEnd);
    socket.on('error', this.onError);
  }

  private detach(socket: Socket): void {
    socket.off('data', this.onData);
    socket.off('end', this.onEnd);
    socket.off('error', this.onError);
  }

  private read(chunk: Buffer): void {
    this.buffer += chunk.toString('latin1');
    let end: number;
    while ((end = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, end).replace(/\r$/, '');
      this.buffer = this.buffer.slice(end + 1);
      const match = /^(\d{3})([ -]|$)(.*)$/.exec(line);
      if (!match) return this.fail(new Error(`not an SMTP reply line: ${JSON.stringify(line.slice(0, 100))}`));
      this.lines.push(match[3]!);
      if (match[2] !== '-') {
        this.replies.push({ code: Number(match[1]), lines: this.lines });
        this.lines = [];
      }
    }
    this.wake?.();
  }

  private fail(err: Error): void {
    this.failure ??= err;
    this.wake?.();
  }
}

/** EHLO and what it offers; `greeting` first reads the 220 a new connection opens with. */
export async function readEhlo(
  client: SmtpProbeClient,
  helo: string,
  options: { greeting: boolean },
): Promise<EhloReport> {
  const greeting = options.greeting ? await client.reply() : { code: 220, lines: [] };
  if (greeting.code !== 220) return { greeting, ehlo: greeting, extensions: new Set(), authMechanisms: [] };
  const ehlo = await client.command(`EHLO ${helo}`);
  return { greeting, ehlo, ...ehloExtensions(ehlo) };
}
