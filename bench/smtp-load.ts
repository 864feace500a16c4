import { connect, type Socket } from 'node:net';
/** One message as the load generator sends it: envelope, and DATA bytes ending in CRLF.CRLF. */
export type SmtpMessage = { from: string; to: string; data: Buffer };

type Reply = { code: number; text: string };

export type LoadOptions = {
  host: string;
  port: number;
  messages: SmtpMessage[];
  /** SMTP sessions open at once; each sends messages one after the other until none is left. */
  concurrency: number;
  /** MAIL, RCPT and DATA in one write when the server offers PIPELINING (as MTAs send). */
  pipelining?: boolean;
  /** AUTH PLAIN once per session, after EHLO (a submission port requires it). */
  auth?: { user: string; password: string };
  /** Longest wait for any one reply before the session is given up. */
  replyTimeoutMs?: number;
};

export type LoadResult = {
  /** Messages answered 250 at the end of DATA. */
  accepted: number;
  /** From the first connection attempt to the last 250. */
  seconds: number;
  /** performance.now() of the first connection attempt and of the last 250 after DATA. */
  startedAt: number;
  lastAcceptedAt: number;
  /** Everything that was not a 250 (the first few, with the count of all). */
  failures: { count: number; examples: string[] };
};

/** Reads SMTP replies (multi-line ones whole) off a socket, in order. */
class ReplyReader {
  private partial = '';
  private lines: string[] = [];
  private readonly ready: Reply[] = [];
  private readonly waiting: Array<{ resolve: (reply: Reply) => void; reject: (err: Error) => void }> = [];
  private failure: Error | null = null;

  constructor(socket: Socket) {
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => this.push(chunk));
    socket.on('error', (err) => this.fail(err));
    socket.on('close', () => this.fail(new Error('connection closed by the server')));
  }

  next(): Promise<Reply> {
    const reply = this.ready.shift();
    if (reply) return Promise.resolve(reply);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  private push(chunk: string): void {
    this.partial += chunk;
    let end: number;
    while ((end = this.partial.indexOf('\n')) >= 0) {
      const line = this.partial.slice(0, end).replace(/\r$/, '');
      this.partial = this.partial.slice(end + 1);
      this.lines.push(line);
      if (line.length > 3 && line[3] === '-') continue; // more lines of the same reply follow
      const reply = { code: Number(line.slice(0, 3)), text: this.lines.join('\n') };
      this.lines = [];
      const waiter = this.waiting.shift();
      if (waiter) waiter.resolve(reply);
      else this.ready.push(reply);
    }
  }

  private fail(err: Error): void {
    if (!this.failure) this.failure = err;
    for (const waiter of this.waiting.splice(0)) waiter.reject(this.failure);
  }
}

/**
 * Sends every message over `concurrency` SMTP sessions (plain TCP, one recipient per message,
 * AUTH PLAIN first when `auth` is given), the way a sending MTA or a submitting application with
 * that many connections does; one command at a time unless `pipelining`; the sessions end with QUIT
 * and the call resolves once every connection is closed. Nothing here asserts: a message that
 * is not answered 250 is counted in `failures`, and a session that breaks hands its remaining
 * messages to the others.
 */
export async function sendLoad(options: LoadOptions): Promise<LoadResult> {
  const { messages } = options;
  const replyTimeoutMs = options.replyTimeoutMs ?? 30_000;
  let next = 0;
  let accepted = 0;
  const failures = { count: 0, examples: [] as string[] };
  const fail = (what: string) => {
    failures.count++;
    if (failures.examples.length < 5) failures.examples.push(what);
  };
  const started = performance.now();
  let lastAccepted = started;

  const session = async (): Promise<void> => {
    const socket = connect({ host: options.host, port: options.port });
    socket.setNoDelay(true);
    socket.setTimeout(replyTimeoutMs, () => socket.destroy(new Error(`no reply within ${replyTimeoutMs} ms`)));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const replies = new ReplyReader(socket);
    const send = (line: string) => socket.write(line);
    try {
      const greeting = await replies.next();
      if (greeting.code !== 220) throw new Error(`greeting: ${greeting.text}`);
      send('EHLO client.bench.test\r\n');
      const ehlo = await replies.next();
      if (ehlo.code !== 250) throw new Error(`EHLO: ${ehlo.text}`);
      const pipelining = Boolean(options.pipelining) && /^250[- ]PIPELINING\b/im.test(ehlo.text);
      if (options.auth) {
        send(`AUTH PLAIN ${Buffer.from(`\0${options.auth.user}\0${options.auth.password}`).toString('base64')}\r\n`);
        const auth = await replies.next();
        if (auth.code !== 235) throw new Error(`AUTH PLAIN: ${auth.text}`);
      }
      while (next < messages.length) {
        const message = messages[next++]!;
        const commands = [`MAIL FROM:<${message.from}>\r\n`, `RCPT TO:<${message.to}>\r\n`, 'DATA\r\n'];
        const answers: Reply[] = [];
        if (pipelining) {
          send(commands.join(''));
          for (let i = 0; i < commands.length; i++) answers.push(await replies.next());
        } else {
          for (const command of commands) {
            send(command);
            answers.push(await replies.next());
          }
        }
        if (answers[2]!.code !== 354) {
          fail(`${message.to}: ${answers.map((answer) => answer.text).join(' / ')}`);
          send('RSET\r\n');
          await replies.next();
          continue;
        }
        socket.write(message.data);
        const end = await replies.next();
        if (end.code === 250) {
          accepted++;
          lastAccepted = performance.now();
        } else fail(`${message.to}: end of DATA: ${end.text}`);
      }
      send('QUIT\r\n');
      await replies.next().catch(() => undefined);
      socket.end();
    } catch (err) {
      fail(`session: ${(err as Error).message}`);
      socket.destroy();
    }
    await closed;
  };

  await Promise.all(Array.from({ length: options.concurrency }, session));
  return {
    accepted,
    seconds: (lastAccepted - started) / 1000,
    startedAt: started,
    lastAcceptedAt: lastAccepted,
    failures,
  };
}
