// Whether dist/ holds a build of the sources as they are now. `npm run build` (scripts/build.js)
// records a fingerprint of the TypeScript sources it compiled in dist/build-stamp.json;
// bin/mailroom.js recomputes it at every start and runs dist/ only when the two agree. The
// fingerprint is a hash of each source's path, size and modification time plus the tsconfig
// files: a stat per file, a few milliseconds for the whole tree, no file read.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export const STAMP_FILE = 'build-stamp.json';
const CONFIG_FILES = ['tsconfig.json', 'tsconfig.build.json'];

/** The folders tsconfig.build.json compiles (its `include`), read from the file itself. */
export function sourceFolders(root) {
  const config = JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8'));
  return config.include;
}

function collect(dir, files) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) collect(path, files);
    else if (/\.[mc]?ts$/.test(entry.name)) files.push(path);
  }
}

/**
 * The fingerprint of the sources under `root` (the folders given), the modification time of the
 * newest, and the sources modified after `since` (ms since the epoch), if given.
 */
export function sourceFingerprint(root, folders, since = Infinity) {
  const files = [];
  for (const folder of folders) collect(join(root, folder), files);
  files.push(...CONFIG_FILES.map((name) => join(root, name)));
  files.sort();
  const hash = createHash('sha256');
  let newestMtimeMs = 0;
  const changed = [];
  for (const path of files) {
    const stat = statSync(path, { throwIfNoEntry: false });
    const name = relative(root, path);
    hash.update(stat ? `${name}\0${stat.size}\0${stat.mtimeMs}\n` : `${name}\0-\n`);
    if (!stat) continue;
    newestMtimeMs = Math.max(newestMtimeMs, stat.mtimeMs);
    if (stat.mtimeMs > since) changed.push(name);
  }
  return { fingerprint: hash.digest('hex'), files: files.length, newestMtimeMs, changed };
}

/**
 * `{ fresh: true }` when dist/ under `root` was built from the sources as they are now, else
 * `{ fresh: false, reason }` saying what is missing or which sources changed since the build.
 */
export function buildState(root) {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(join(root, 'dist', STAMP_FILE), 'utf8'));
  } catch {
    return { fresh: false, reason: 'there is no compiled build (dist/build-stamp.json is missing)' };
  }
  const now = sourceFingerprint(root, stamp.folders, stamp.newestMtimeMs);
  if (now.fingerprint === stamp.fingerprint) return { fresh: true };
  const changed = now.changed.length
    ? `${now.changed.slice(0, 3).join(', ')}${now.changed.length > 3 ? ` and ${now.changed.length - 3} more` : ''} changed`
    : `sources were added, removed or replaced (${stamp.files} files at the build, ${now.files} now)`;
  return { fresh: false, reason: `the compiled build in dist/ is out of date: ${changed} since it was built` };
}

/** The dashboard's build (scripts/build-web.js): its own stamp, beside its files. */
export const WEB_DIST = join('dist', 'web');
const WEB_INPUTS = ['web', 'package-lock.json'];

/**
 * The fingerprint of the dashboard's sources: every file under web/ (TypeScript, CSS, HTML, the
 * Vite config) and the lock file (a new React is a new build). A stat per file, as above.
 */
export function webFingerprint(root) {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.push(path);
    }
  };
  for (const input of WEB_INPUTS) {
    const path = join(root, input);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat?.isDirectory()) walk(path);
    else if (stat) files.push(path);
  }
  files.sort();
  const hash = createHash('sha256');
  for (const path of files) {
    const stat = statSync(path);
    hash.update(`${relative(root, path)}\0${stat.size}\0${stat.mtimeMs}\n`);
  }
  return { fingerprint: hash.digest('hex'), files: files.length };
}

/** `{ fresh: true }` when dist/web was built from web/ as it is now, else why not. */
export function webBuildState(root) {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(join(root, WEB_DIST, STAMP_FILE), 'utf8'));
  } catch {
    return { fresh: false, reason: 'the dashboard is not built (dist/web/build-stamp.json is missing)' };
  }
  if (webFingerprint(root).fingerprint === stamp.fingerprint) return { fresh: true };
  return { fresh: false, reason: 'the dashboard build in dist/web is out of date: web/ changed since it was built' };
}
