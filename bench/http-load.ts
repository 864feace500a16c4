import { Agent, request } from 'node:http';

/** Fires `total` POSTs with `concurrency` in flight over keep-alive; returns sends per second. */
export async function postLoad(
  url: string,
  headers: Record<string, string>,
  body: (i: number) => unknown,
  total: number,
  concurrency: number,
) {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const target = new URL(url);
  let next = 0;
  let failed = 0;
  const statuses = new Map<number, number>();
  const one = (i: number) =>
    new Promise<void>((resolve) => {
      const payload = JSON.stringify(body(i));
      const req = request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
        },
        (res) => {
          statuses.set(res.statusCode ?? 0, (statuses.get(res.statusCode ?? 0) ?? 0) + 1);
          if (res.statusCode !== 200) failed++;
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', () => {
        failed++;
        resolve();
      });
      req.end(payload);
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) await one(next++);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return { perSecond: total / seconds, seconds, failed, statuses: Object.fromEntries(statuses) };
}
