import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';

/** nodemailer reads local files from a `path` in old versions: every copy in the tree must be >= 10.4.1. */
function findPackages(dir: string, name: string, found: string[] = []): string[] {
  if (!existsSync(dir)) return found;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const path = join(dir, entry.name);
    // @types/nodemailer is type declarations only (no code that reads files): not a copy.
    if (entry.name.startsWith('@') && entry.name !== '@types') findPackages(path, name, found);
    else if (entry.name === name && existsSync(join(path, 'package.json'))) found.push(path);
    const nested = join(path, 'node_modules');
    if (existsSync(nested)) findPackages(nested, name, found);
  }
  return found;
}

const atLeast = (version: string, minimum: number[]) => {
  const parts = version.split('.').map(Number);
  for (let i = 0; i < minimum.length; i++) if ((parts[i] ?? 0) !== minimum[i]) return (parts[i] ?? 0) > minimum[i]!;
  return true;
};

t.test('every nodemailer in node_modules is at least 10.4.1', async (t) => {
  const copies = findPackages('node_modules', 'nodemailer');
  t.ok(copies.length >= 1, 'nodemailer is installed');
  for (const path of copies) {
    const { version } = JSON.parse(readFileSync(join(path, 'package.json'), 'utf8')) as { version: string };
    t.ok(atLeast(version, [10, 4, 1]), `${path}: ${version}`);
  }
});
