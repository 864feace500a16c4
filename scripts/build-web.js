#!/usr/bin/env node
// `npm run build:web` (and the second half of `npm run build`): builds the dashboard (web/) with
// Vite into a temporary folder, writes its stamp (the fingerprint of web/ as it was before Vite
// read it), then renames the folder to dist/web in one step: the api process serves dist/web
// only when its stamp is there, so a failed or interrupted build is never served half-built.
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { STAMP_FILE, WEB_DIST, webFingerprint } from '../bin/build-state.js';

const root = fileURLToPath(new URL('..', import.meta.url));
// `--out DIR` builds somewhere else (a snapshot for browser tests that a concurrent build must not
// replace); the default is dist/web, the folder the api process serves.
const outFlag = process.argv.indexOf('--out');
const target = outFlag > 0 && process.argv[outFlag + 1] ? process.argv[outFlag + 1] : join(root, WEB_DIST);
const temporary = `${target}.tmp-${process.pid}`;

const started = performance.now();
const before = webFingerprint(root);
let vite;
try {
  vite = await import('vite');
} catch {
  process.stderr.write('mailroom: vite is not installed: run npm ci first\n');
  process.exit(1);
}
try {
  await vite.build({
    configFile: join(root, 'web', 'vite.config.ts'),
    logLevel: process.env.CI ? 'warn' : 'info',
    build: { outDir: temporary, emptyOutDir: true },
  });
} catch (err) {
  rmSync(temporary, { recursive: true, force: true });
  process.stderr.write(`mailroom: the dashboard build failed; dist/web is left as it was\n${err?.message ?? err}\n`);
  process.exit(1);
}
// A gzip copy beside each text file: the api process serves it to browsers that take gzip,
// without compressing on every request.
for (const entry of readdirSync(temporary, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !/\.(js|css|html|svg|json)$/.test(entry.name)) continue;
  const path = join(entry.parentPath ?? entry.path, entry.name);
  writeFileSync(`${path}.gz`, gzipSync(readFileSync(path), { level: 9 }));
}
const stamp = { fingerprint: before.fingerprint, files: before.files, builtAt: new Date().toISOString() };
writeFileSync(join(temporary, STAMP_FILE), `${JSON.stringify(stamp, null, 2)}\n`);
rmSync(target, { recursive: true, force: true });
renameSync(temporary, target);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
const shown = target === join(root, WEB_DIST) ? `${WEB_DIST}/` : target;
process.stderr.write(`mailroom: built the dashboard into ${shown} in ${seconds} s\n`);
