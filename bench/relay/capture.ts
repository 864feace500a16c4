import { SMTPServer } from 'smtp-server';

/**
 * A tiny SMTP server that keeps the messages it receives: the check that each relay really
 * signs (one message each goes to it, outside the timing; the sink keeps nothing).
 */
export class CaptureServer {
  readonly messages: Buffer[] = [];
  private constructor(private readonly server: SMTPServer) {}

  static async start(host: string, port: number): Promise<CaptureServer> {
    let capture: CaptureServer | null = null;
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, _session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.once('end', () => {
          capture?.messages.push(Buffer.concat(chunks));
          callback();
        });
      },
    });
    capture = new CaptureServer(server);
    await new Promise<void>((resolve, reject) => {
      server.server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    return capture;
  }

  /** Waits until `count` messages have arrived (false after `timeoutMs`). */
  async waitFor(count: number, timeoutMs = 30_000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.messages.length < count) {
      if (Date.now() > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return true;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * What the DKIM-Signature of a received message says: signing domain, algorithm, and the key
 * size as the length of the signature (an RSA signature has the modulus's length), or why not.
 */
export function describeSignature(message: Buffer | undefined): { ok: boolean; text: string } {
  if (!message) return { ok: false, text: 'no message received' };
  const head = message
    .toString('latin1')
    .split(/\r?\n\r?\n/)[0]!
    .replace(/\r?\n[ \t]+/g, ' ');
  const header = head.split(/\r?\n/).find((line) => /^dkim-signature:/i.test(line));
  if (!header) return { ok: false, text: 'NOT SIGNED (no DKIM-Signature header)' };
  const tags = Object.fromEntries(
    header
      .slice(header.indexOf(':') + 1)
      .split(';')
      .map((tag) => tag.trim().split('='))
      .filter((pair) => pair.length >= 2)
      .map(([name, ...value]) => [name!.trim(), value.join('=').replace(/\s+/g, '')]),
  ) as Record<string, string>;
  const bits = Buffer.from(tags.b ?? '', 'base64').length * 8;
  const ok = tags.a === 'rsa-sha256' && bits === 2048;
  return { ok, text: `d=${tags.d} s=${tags.s} a=${tags.a} c=${tags.c ?? 'simple/simple'}, ${bits}-bit signature` };
}
