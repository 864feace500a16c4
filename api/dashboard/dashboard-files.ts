import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What the build writes (scripts/build-web.js): index.html, hashed assets, the stamp last. */
const STAMP = 'build-stamp.json';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

export type DashboardFile = { bytes: Buffer; gzip: Buffer | null; contentType: string; immutable: boolean };

/**
 * The project's root: the folder of package.json above this file, whether it runs from the
 * sources (api/dashboard/) or from the compiled build (dist/api/dashboard/).
 */
function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

export const defaultDashboardDir = () => join(projectRoot(), 'dist', 'web');

/**
 * The built dashboard on disk, read into memory once (a few hundred kilobytes) together with
 * the gzip copies the build made, so a request costs a map look-up. A folder without the stamp
 * is not a complete build and is never served.
 */
export class DashboardFiles {
  private files = new Map<string, DashboardFile>();
  readonly built: boolean;

  constructor(readonly dir: string) {
    this.built = existsSync(join(dir, STAMP)) && existsSync(join(dir, 'index.html'));
  }

  /** The file at a path under /dashboard/ ('assets/x-1a2b.js'), or undefined. */
  get(relativePath: string): DashboardFile | undefined {
    if (!this.built || relativePath.split(/[\\/]/).some((segment) => segment === '..' || segment === '.'))
      return undefined;
    const cached = this.files.get(relativePath);
    if (cached) return cached;
    const full = resolve(this.dir, relativePath);
    // Nothing outside the build folder, and not the stamp or the gzip copies themselves.
    if (!full.startsWith(this.dir + sep) || relativePath === STAMP || full.endsWith('.gz')) return undefined;
    const stat = statSync(full, { throwIfNoEntry: false });
    if (!stat?.isFile()) return undefined;
    const gzipPath = `${full}.gz`;
    const file: DashboardFile = {
      bytes: readFileSync(full),
      gzip: existsSync(gzipPath) ? readFileSync(gzipPath) : null,
      contentType: CONTENT_TYPES[extname(full)] ?? 'application/octet-stream',
      // Vite names every asset by its content hash: such a file never changes under its name.
      immutable: relativePath.startsWith('assets/'),
    };
    this.files.set(relativePath, file);
    return file;
  }
}
