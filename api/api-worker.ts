/**
 * One API worker of the cluster (see api-cluster.ts): waits for the primary's configuration,
 * builds its own runtime (the primary has migrated), serves on the shared port, and keeps its
 * look-up cache in step with its siblings. Exits when the primary asks, on SIGTERM/SIGINT, or
 * when the primary is gone.
 */
import { createRuntime } from '../app/runtime.js';
import { Shutdown } from '../lib/shutdown.js';
import { isClusterMessage, type ClusterMessage } from './api-cluster.js';
import { startApiServer } from './server.js';

const send = (message: ClusterMessage) => process.send?.(message);

const config = await new Promise<ClusterMessage & { mailroom: 'config' }>((resolve) => {
  const onMessage = (message: unknown) => {
    if (!isClusterMessage(message) || message.mailroom !== 'config') return;
    process.off('message', onMessage);
    resolve(message);
  };
  process.on('message', onMessage);
  send({ mailroom: 'config-please' });
}).then((message) => message.config);

const runtime = await createRuntime(config, { migrate: false });
const shutdown = new Shutdown(runtime.logger);
shutdown.add('runtime', () => runtime.close());
runtime.services.lookupCache.onInvalidate(() => send({ mailroom: 'invalidate-lookups' }));
process.on('message', (message: unknown) => {
  if (!isClusterMessage(message)) return;
  if (message.mailroom === 'invalidate-lookups') runtime.services.lookupCache.invalidate({ propagate: false });
  if (message.mailroom === 'shutdown') void shutdown.run().then(() => process.exit(0));
});
// The primary is gone (killed without a chance to stop us): nothing hands us connections any more.
process.on('disconnect', () => void shutdown.run().then(() => process.exit(0)));
shutdown.installSignalHandlers();

const api = await startApiServer(runtime, { worker: true });
shutdown.add('api', () => api.close());
send({ mailroom: 'listening', url: api.url });
