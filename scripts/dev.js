#!/usr/bin/env node
// `npm run dev`: the appliance from the TypeScript sources through tsx, restarted on every change
// of them, and the dashboard rebuilt into dist/web whenever a file under web/ changes (each
// rebuild is atomic, as in `npm run build:web`; reload the page to see it). Ctrl-C stops both.
import { spawn, spawnSync } from 'node:child_process';
import { watch } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const buildWeb = () => spawnSync(process.execPath, [join(root, 'scripts', 'build-web.js')], { stdio: 'inherit' });

buildWeb();
let timer;
watch(join(root, 'web'), { recursive: true }, () => {
  clearTimeout(timer);
  timer = setTimeout(buildWeb, 200);
});

const tsx = join(root, 'node_modules', '.bin', 'tsx');
const appliance = spawn(tsx, ['watch', '--clear-screen=false', join(root, 'cli', 'main.ts'), 'start'], {
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => appliance.kill(signal));
appliance.on('exit', (code) => process.exit(code ?? 0));
