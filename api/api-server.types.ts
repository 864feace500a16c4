import type { Server } from 'node:http';

/** A running API: `server` is null in the primary of an API cluster (its workers serve). */
export type ApiServer = { server: Server | null; url: string; close(): Promise<void> };
