/**
 * docs/architecture.md names every top-level folder of the repository and every core group
 * (core/<group>/ and core/<group>/<feature>/): a folder added without a word on the page fails
 * here. Folders are taken from the files git tracks or would track (ignored ones, such as
 * node_modules/, dist/ and data/, do not count).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PAGE = 'docs/architecture.md';

const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
  cwd: ROOT,
  encoding: 'utf8',
})
  .split('\0')
  .filter((file) => file && existsSync(join(ROOT, file)))
  .map((file) => file.split('/'));

const topFolders = [...new Set(files.filter((parts) => parts.length > 1).map((parts) => parts[0]!))].sort();
const coreGroups = [
  ...new Set(
    files
      .filter((parts) => parts[0] === 'core' && parts.length > 2)
      .flatMap((parts) => (parts.length > 3 ? [parts.slice(0, 2), parts.slice(0, 3)] : [parts.slice(0, 2)]))
      .map((parts) => parts.join('/')),
  ),
].sort();

const page = readFileSync(join(ROOT, PAGE), 'utf8');
/** The path appears on the page as a path (not as part of a longer name). */
const named = (path: string) => {
  const escaped = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\w./-])${escaped}(?![\\w-])`).test(page);
};

t.ok(topFolders.includes('core') && topFolders.includes('test'), 'found the top-level folders');
t.ok(coreGroups.length >= 11, 'found the core groups');

t.test('every top-level folder is on the page', async (t) => {
  for (const folder of topFolders) t.ok(named(`${folder}/`), `${folder}/ is named in ${PAGE}`);
});

t.test('every core group and feature folder is on the page', async (t) => {
  for (const group of coreGroups) t.ok(named(group), `${group}/ is named in ${PAGE}`);
});
