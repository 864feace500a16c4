import type { Logger } from './logger.js';

type Closer = { name: string; close: () => Promise<void> | void };

/**
 * Ordered shutdown: things registered last close first (servers before the database they use).
 * SIGTERM from systemd and SIGINT from a terminal both drain; a second signal exits at once.
 */
export class Shutdown {
  private readonly closers: Closer[] = [];
  private closing: Promise<void> | undefined;

  constructor(private readonly logger: Logger) {}

  add(name: string, close: Closer['close']): void {
    this.closers.push({ name, close });
  }

  run(): Promise<void> {
    if (!this.closing) this.closing = this.closeAll();
    return this.closing;
  }

  private async closeAll(): Promise<void> {
    for (const closer of [...this.closers].reverse()) {
      try {
        await closer.close();
      } catch (err) {
        this.logger.error({ err, part: closer.name }, 'error while shutting down');
      }
    }
  }

  installSignalHandlers(): void {
    let signalled = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (signalled) process.exit(1);
      signalled = true;
      this.logger.info({ signal }, 'shutting down');
      void this.run().then(() => process.exit(0));
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  }
}
