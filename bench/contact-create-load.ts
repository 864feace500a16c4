/**
 * Contact creates through HTTP for the audience and segments benchmarks: POST /contacts with a
 * number property, from `concurrency` clients over keep-alive connections.
 */
import { Agent, request } from 'node:http';

/** POST /contacts from CONCURRENCY clients; the sorted latencies in ms (a tenth of the requests warm up first). */
export async function createLoad(
  url: string,
  token: string,
  { requests: CREATES, concurrency: CONCURRENCY }: { requests: number; concurrency: number },
): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const target = new URL(`${url}/contacts`);
  const post = (i: number) =>
    new Promise<number>((resolve, reject) => {
      const body = JSON.stringify({ email: `new${i}@create.example`, first_name: 'New', properties: { seats: i } });
      const started = performance.now();
      const req = request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'user-agent': 'bench',
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode === 201 ? resolve(performance.now() - started) : reject(new Error(`${res.statusCode}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const run = async (from: number, count: number) => {
    const latencies: number[] = [];
    let next = from;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < from + count) latencies.push(await post(next++));
      }),
    );
    return latencies;
  };
  await run(0, Math.ceil(CREATES / 10));
  const latencies = await run(CREATES, CREATES);
  agent.destroy();
  return latencies.sort((a, b) => a - b);
}
