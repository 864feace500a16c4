import { connect } from 'node:net';

/** Resolves once something accepts TCP connections on host:port; rejects when `running()` turns false or on timeout. */
export async function waitListening(
  host: string,
  port: number,
  timeoutMs: number,
  running: () => boolean = () => true,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!running()) throw new Error('the process exited');
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, host, () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`nothing listens on ${host}:${port} after ${timeoutMs} ms`);
}
