import type { Server } from 'node:http';

/** A running API: `server` is null in the primary of an API cluster (its workers serve). */
export type ApiServer = {
  server: Server | null;
  url: string;
  /** The dashboard's own listener, when dashboard.port is set. */
  dashboardUrl?: string;
  close(): Promise<void>;
};
