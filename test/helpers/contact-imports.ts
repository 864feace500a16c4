import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ContactImport } from '../../core/audience/imports/contact-import.types.js';
import type { ImportWorker } from '../../core/audience/imports/contact-import.runner.js';
import type { Runtime } from '../../app/runtime.js';
import { UA, type TestApp } from './test-app.js';

export const fixture = (name: string) =>
  readFileSync(join(import.meta.dirname, '..', 'fixtures', 'contact-imports', name));

/** POST /contacts/imports as a multipart form (undici's FormData), fields as given. */
export async function uploadImport(
  app: Pick<TestApp, 'url'>,
  token: string,
  file: Buffer | string | null,
  fields: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const form = new FormData();
  if (file !== null) form.append('file', new Blob([file]), 'contacts.csv');
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  const response = await fetch(`${app.url}/contacts/imports`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'user-agent': UA },
    body: form,
  });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

/** The worker as the scheduler process drives it (same lease, limits and runner). */
export async function importWorker(runtime: Runtime, signal?: AbortSignal): Promise<ImportWorker> {
  const { services } = runtime;
  return {
    owner: await services.processLease.ensure(),
    isDead: (owner) => services.processLease.isDead(owner),
    contactLimit: async (teamId) => (await services.teams.get(teamId)).plan.limits.contact_limit,
    signal,
  };
}

/** Runs every open import to its end; returns them as they ended. */
export async function runImports(runtime: Runtime): Promise<ContactImport[]> {
  const worker = await importWorker(runtime);
  const done: ContactImport[] = [];
  for (let imp = await runtime.services.contactImportRunner.runNext(worker); imp;) {
    done.push(imp);
    imp = await runtime.services.contactImportRunner.runNext(worker);
  }
  return done;
}

/** Files left in the upload directory (a refused upload must leave none). */
export const incomingFiles = (runtime: Runtime) => {
  try {
    return readdirSync(runtime.services.contactImports.uploadDirectory);
  } catch {
    return [];
  }
};

/** A CSV of `count` generated contacts (email, first_name, and a number property `seats`). */
export function generatedCsv(count: number, prefix = 'person'): string {
  const lines = ['email,first_name,seats'];
  for (let i = 1; i <= count; i++) lines.push(`${prefix}${i}@example.com,Person ${i},${i % 50}`);
  return `${lines.join('\n')}\n`;
}
