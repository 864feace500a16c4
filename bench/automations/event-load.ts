import { Agent, request } from 'node:http';

export type LoadResult = {
  /** Requests answered 202 inside the measured window. */
  accepted: number;
  /** Requests answered otherwise, or failed on the socket, inside the window. */
  errors: number;
  /** Status (0: socket error) -> count, inside the window. */
  statuses: Record<number, number>;
  /** Latencies (ms) of the window's requests (202 or not), sorted. */
  latencies: number[];
  /** The window's length in ms: from its start to the last of its requests answered. */
  elapsedMs: number;
  /** A first error answer, as an example. */
  firstError: string | null;
};

/**
 * POSTs from `concurrency` clients over keep-alive for `warmUpMs` (untimed) and then `durationMs`
 * (measured): each client sends its next request as soon as its last one is answered. Unlike
 * bench/http-load.ts (fixed count, 200 as success, no latencies) it counts 202 as success and
 * keeps every latency. Requests started in the window count, the window ends when the last of
 * them is answered. `onProgress` is called every `progressMs` of the window with counts so far.
 */
export async function timedPostLoad(options: {
  url: string;
  headers: Record<string, string>;
  body: (i: number) => unknown;
  concurrency: number;
  warmUpMs: number;
  durationMs: number;
  progressMs?: number;
  onProgress?: (elapsedMs: number, accepted: number, errors: number) => void;
}): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const target = new URL(options.url);
  let sent = 0;
  let measuring = false;
  let stopped = false;
  const result: LoadResult = {
    accepted: 0,
    errors: 0,
    statuses: {},
    latencies: [],
    elapsedMs: 0,
    firstError: null,
  };
  const count = (status: number, latency: number, text: string | null) => {
    result.statuses[status] = (result.statuses[status] ?? 0) + 1;
    result.latencies.push(latency);
    if (status === 202) result.accepted++;
    else {
      result.errors++;
      result.firstError ??= `${status || 'socket error'}: ${(text ?? '').slice(0, 200)}`;
    }
  };
  const one = (i: number) =>
    new Promise<void>((resolve) => {
      const inWindow = measuring;
      const payload = JSON.stringify(options.body(i));
      const started = performance.now();
      const req = request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          headers: {
            ...options.headers,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(payload),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            if (inWindow)
              count(
                res.statusCode ?? 0,
                performance.now() - started,
                res.statusCode === 202 ? null : Buffer.concat(chunks).toString(),
              );
            resolve();
          });
        },
      );
      req.on('error', (err) => {
        if (inWindow) count(0, performance.now() - started, err.message);
        resolve();
      });
      req.end(payload);
    });
  const clients = Array.from({ length: options.concurrency }, async () => {
    while (!stopped) await one(sent++);
  });
  await new Promise((resolve) => setTimeout(resolve, options.warmUpMs));
  measuring = true;
  const started = performance.now();
  const progress =
    options.onProgress &&
    setInterval(
      () => options.onProgress!(performance.now() - started, result.accepted, result.errors),
      options.progressMs ?? 5000,
    );
  await new Promise((resolve) => setTimeout(resolve, options.durationMs));
  measuring = false;
  stopped = true;
  await Promise.all(clients);
  result.elapsedMs = performance.now() - started;
  if (progress) clearInterval(progress);
  agent.destroy();
  result.latencies.sort((a, b) => a - b);
  return result;
}
