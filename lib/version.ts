import { existsSync, readFileSync } from 'node:fs';

/** The appliance version, from package.json (one level up from the sources, two from dist/). */
function readVersion(): string {
  for (const relative of ['../package.json', '../../package.json']) {
    const url = new URL(relative, import.meta.url);
    if (existsSync(url)) return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
  }
  return '0.0.0';
}

export const VERSION: string = readVersion();
