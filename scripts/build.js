#!/usr/bin/env node
// `npm run build`, also npm's `prepare` (so `npm ci` and `npm install` build): compiles the
// TypeScript sources into dist/ with `tsc -p tsconfig.build.json`, builds the dashboard into
// dist/web (scripts/build-web.js), links the non-TypeScript
// folders the code finds next to its own files, and writes dist/build-stamp.json, the
// fingerprint of the sources compiled, which bin/mailroom.js checks at every start. The stamp is
// written last and fingerprints the sources as they were before tsc read them: a build that
// fails, or sources changed while it ran, leave dist/ counted as out of date, never as fresh.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { STAMP_FILE, sourceFingerprint, sourceFolders } from '../bin/build-state.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
/** Folders of files other than TypeScript that the code reads relative to its own file. */
const ASSET_FOLDERS = ['inbound/haraka/plugins'];

// `npm pack` runs `prepare` too: the tarball carries the sources, and the node that installs it
// builds them (dist/ is not packed), so packing needs no compiler.
if (process.argv.includes('--prepare') && ['pack', 'publish'].includes(process.env.npm_command ?? '')) {
  process.stderr.write('mailroom: not building for npm pack (the release builds at npm ci)\n');
  process.exit(0);
}

const started = performance.now();
const folders = sourceFolders(root);
const before = sourceFingerprint(root, folders);
rmSync(dist, { recursive: true, force: true });

let tsc;
try {
  tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
} catch {
  process.stderr.write('mailroom: typescript is not installed: run npm ci first\n');
  process.exit(1);
}
const compile = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (compile.status !== 0) {
  process.stderr.write(`mailroom: tsc failed (${compile.status ?? compile.signal}); dist/ is left without a stamp\n`);
  process.exit(compile.status || 1);
}

for (const folder of ASSET_FOLDERS) {
  const link = join(dist, folder);
  mkdirSync(dirname(link), { recursive: true });
  symlinkSync(relative(dirname(link), join(root, folder)), link, 'dir');
}
const unlisted = otherFiles(folders).filter((file) => !ASSET_FOLDERS.some((folder) => file.startsWith(`${folder}/`)));
if (unlisted.length)
  process.stderr.write(
    `mailroom: warning: not in dist/ (add their folder to ASSET_FOLDERS in scripts/build.js if the code reads them): ${unlisted.join(', ')}\n`,
  );

const stamp = {
  fingerprint: before.fingerprint,
  files: before.files,
  newestMtimeMs: before.newestMtimeMs,
  folders,
  builtAt: new Date().toISOString(),
  node: process.version,
};
writeFileSync(join(dist, STAMP_FILE), `${JSON.stringify(stamp, null, 2)}\n`);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
process.stderr.write(`mailroom: compiled ${before.files} sources into dist/ in ${seconds} s\n`);

// The dashboard (web/, React built by Vite) into dist/web, with its own stamp.
const web = spawnSync(process.execPath, [join(root, 'scripts', 'build-web.js')], { stdio: 'inherit' });
if (web.status !== 0) process.exit(web.status || 1);

/** Files under the source folders that tsc does not compile (paths relative to the root). */
function otherFiles(list) {
  const found = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (!/\.[mc]?ts$/.test(entry.name)) found.push(relative(root, path));
    }
  };
  for (const folder of list) walk(join(root, folder));
  return found;
}
