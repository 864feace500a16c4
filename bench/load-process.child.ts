/**
 * The load generator as a process of its own (forked by load-process.ts): the server under test
 * never shares its thread with the client, and both servers of a comparison are loaded the same way.
 */
import { benchMessage } from './bench-message.js';
import { postLoad } from './http-load.js';
import type { LoadRequest } from './load-process.js';

process.once('message', (request: LoadRequest) => {
  void (async () => {
    if (request.warmup > 0)
      await postLoad(request.url, request.headers, benchMessage, request.warmup, request.concurrency);
    // The parent reads the server's CPU time from here on (the measured run alone).
    await new Promise<void>((resolve) => process.send!({ warmedUp: true }, () => resolve()));
    const cpuBefore = process.cpuUsage();
    const result = await postLoad(request.url, request.headers, benchMessage, request.total, request.concurrency);
    const cpu = process.cpuUsage(cpuBefore);
    // The load generator's own CPU over the measured run: it shares the machine with the server.
    process.send!({ ...result, clientCpuSeconds: (cpu.user + cpu.system) / 1e6 }, () => process.exit(0));
  })();
});
