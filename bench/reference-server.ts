import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import mysql from 'mysql2/promise';

/**
 * The benchmark's reference: Koa and mysql2, one autocommit INSERT of the request body per
 * request, in this process. What a minimal durable "accept and store" endpoint costs.
 */
export async function startReferenceServer(serverUrl: string, database: string, poolSize: number) {
  const admin = await mysql.createConnection({ uri: `${serverUrl}/` });
  await admin.query(`CREATE DATABASE \`${database}\``);
  await admin.end();
  const pool = mysql.createPool({ uri: `${serverUrl}/${database}`, connectionLimit: poolSize });
  await pool.query(
    'CREATE TABLE emails (id CHAR(36) PRIMARY KEY, body MEDIUMTEXT NOT NULL, created_at DATETIME(3) NOT NULL)',
  );
  const app = new Koa();
  app.use(async (ctx) => {
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
    const id = randomUUID();
    await pool.execute('INSERT INTO emails (id, body, created_at) VALUES (?, ?, NOW(3))', [
      id,
      Buffer.concat(chunks).toString('utf8'),
    ]);
    ctx.body = { id };
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await pool.end();
    },
  };
}
