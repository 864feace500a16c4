import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/**
 * A recipient's mail server on a loopback address offering STARTTLS with a certificate the test
 * chooses (the MX name signed by a test CA, a wrong name, a self-signed one), for destination
 * TLS policies (MTA-STS, DANE). It records what arrives and whether it came over TLS.
 */
export class TlsSmtpSink {
  readonly messages: Array<{ to: string[]; secure: boolean }> = [];
  connections = 0;

  private constructor(private readonly server: SMTPServer) {}

  static async start(
    host: string,
    port: number,
    tls: { key: string; cert: string; ca?: string } | 'none',
  ): Promise<TlsSmtpSink> {
    let sink!: TlsSmtpSink;
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: tls === 'none' ? ['AUTH', 'STARTTLS'] : ['AUTH'],
      ...(tls === 'none' ? {} : { key: tls.key, cert: tls.ca ? tls.cert + tls.ca : tls.cert }),
      logger: false,
      onConnect: (_session, callback) => {
        sink.connections++;
        callback();
      },
      onData: (stream, session, callback) => {
        stream.resume();
        stream.on('end', () => {
          sink.messages.push({ to: session.envelope.rcptTo.map((r) => r.address), secure: session.secure });
          callback();
        });
      },
    });
    sink = new TlsSmtpSink(server);
    server.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    return sink;
  }

  get port(): number {
    return (this.server.server.address() as AddressInfo).port;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
