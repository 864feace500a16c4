import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** True once something on host:port sends an SMTP greeting (220). */
function greets(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let text = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2000, () => done(false));
    socket.once('error', () => done(false));
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (text.includes('\n')) done(text.startsWith('220'));
    });
  });
}

/** Resolves once the server greets; rejects when `running()` turns false or after `timeoutMs`. */
export async function waitForGreeting(
  host: string,
  port: number,
  timeoutMs: number,
  running: () => boolean,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!running()) throw new Error('the server exited');
    if (await greets(host, port)) return;
    await sleep(100);
  }
  throw new Error(`no SMTP greeting on ${host}:${port} within ${timeoutMs} ms`);
}
