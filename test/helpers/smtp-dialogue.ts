import { connect, type Socket } from 'node:net';

/** One SMTP reply: its code and its lines' texts joined. */
export type SmtpReply = { code: number; text: string };

/**
 * A raw SMTP conversation over TCP, for tests that must control the bytes on the wire
 * (pipelining, smuggling probes, exact reply codes). `send` writes as given; `reply` reads
 * the next complete (possibly multi-line) reply.
 */
export class SmtpDialogue {
  private buffer = '';
  private waiting: Array<() => void> = [];
  private closed = false;

  private constructor(private readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      for (const wake of this.waiting.splice(0)) wake();
    });
    socket.on('close', () => {
      this.closed = true;
      for (const wake of this.waiting.splice(0)) wake();
    });
    socket.on('error', () => undefined);
  }

  static async open(port: number, host = '127.0.0.1'): Promise<SmtpDialogue> {
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = connect({ port, host }, () => resolve(s));
      s.once('error', reject);
    });
    return new SmtpDialogue(socket);
  }

  send(bytes: string | Buffer): void {
    this.socket.write(bytes);
  }

  /** The next reply; rejects when the connection closes first or nothing comes within the time. */
  async reply(timeoutMs = 15_000): Promise<SmtpReply> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = /^((?:\d{3}-[^\r\n]*\r?\n)*)(\d{3}) ?([^\r\n]*)\r?\n/.exec(this.buffer);
      if (match) {
        this.buffer = this.buffer.slice(match[0].length);
        const lines = [
          ...match[1]!
            .split(/\r?\n/)
            .filter(Boolean)
            .map((l) => l.slice(4)),
          match[3]!,
        ];
        return { code: Number(match[2]), text: lines.join('\n') };
      }
      if (this.closed) throw new Error(`connection closed; unread: ${JSON.stringify(this.buffer)}`);
      if (Date.now() > deadline)
        throw new Error(`no reply within ${timeoutMs} ms; unread: ${JSON.stringify(this.buffer)}`);
      await new Promise<void>((wake) => {
        this.waiting.push(wake);
        setTimeout(wake, 100);
      });
    }
  }

  /** Sends a command line and reads its reply. */
  async command(line: string): Promise<SmtpReply> {
    this.send(`${line}\r\n`);
    return this.reply();
  }

  close(): void {
    this.socket.destroy();
  }
}
