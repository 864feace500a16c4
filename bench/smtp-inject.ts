import SMTPConnection from 'nodemailer/lib/smtp-connection';

export type InjectedMessage = { from: string; to: string; mime: Buffer };

/**
 * Hands messages to an SMTP server over `parallel` connections (the benchmark's way of queueing
 * mail in Postfix before the clock starts; much quicker than one sendmail process per message).
 */
export async function injectOverSmtp(
  host: string,
  port: number,
  messages: InjectedMessage[],
  parallel = 8,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    const connection = new SMTPConnection({
      host,
      port,
      name: 'bench.injector',
      connectionTimeout: 10_000,
      socketTimeout: 60_000,
    });
    await new Promise<void>((resolve, reject) => {
      connection.once('error', reject);
      connection.connect(() => resolve());
    });
    try {
      while (next < messages.length) {
        const message = messages[next++]!;
        await new Promise<void>((resolve, reject) =>
          connection.send({ from: message.from, to: [message.to] }, message.mime, (err) =>
            err ? reject(err) : resolve(),
          ),
        );
      }
    } finally {
      connection.quit();
    }
  };
  await Promise.all(Array.from({ length: parallel }, lane));
}
