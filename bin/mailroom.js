#!/usr/bin/env node
// The `mailroom` command. It runs the compiled JavaScript in dist/ (`npm ci` builds it through
// npm's `prepare`; `npm run build` rebuilds), after checking that dist/ was built from the
// sources as they are now (bin/build-state.js). An out-of-date or missing build never runs:
//   - in production (NODE_ENV or MAILROOM_ENV is "production") the command refuses, exit code 2,
//     naming the command that rebuilds;
//   - elsewhere (a checkout being worked on) it says so in one line on stderr and runs the
//     TypeScript sources through tsx, which compiles them at every start (a few seconds).
// MAILROOM_FROM_SOURCE=1 runs the sources through tsx without a word: the tests do, so they need
// no build and always test the sources.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildState, webBuildState } from './build-state.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const production = process.env.NODE_ENV === 'production' || process.env.MAILROOM_ENV === 'production';

// The commands that serve the dashboard (dist/web) check its build as the code's: out of date is
// refused in production; in a checkout it is rebuilt first (Vite takes about a second). In
// production `--version` checks it too: the playbook runs it before switching to a release.
const command = process.argv[2];
const servesDashboard = command === 'start' || command === 'api' || (production && command === '--version');
if (servesDashboard && process.env.MAILROOM_FROM_SOURCE !== '1') {
  const web = webBuildState(root);
  if (!web.fresh && production) {
    process.stderr.write(
      `mailroom: ${web.reason}. Refusing to serve it in production: run \`npm run build\` in ${root}.\n`,
    );
    process.exit(2);
  } else if (!web.fresh) {
    process.stderr.write(`mailroom: ${web.reason}; rebuilding it (npm run build:web)\n`);
    const built = spawnSync(process.execPath, [fileURLToPath(new URL('../scripts/build-web.js', import.meta.url))], {
      stdio: 'inherit',
    });
    if (built.status !== 0) process.exit(built.status || 1);
  }
}

async function fromSource() {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../cli/main.ts');
}

if (process.env.MAILROOM_FROM_SOURCE === '1') {
  await fromSource();
} else {
  const state = buildState(root);
  if (state.fresh) {
    await import('../dist/cli/main.js');
  } else if (production) {
    process.stderr.write(
      `mailroom: ${state.reason}. Refusing to run it in production: run \`npm run build\` in ${root} ` +
        '(or MAILROOM_FROM_SOURCE=1 to run the sources through tsx).\n',
    );
    process.exit(2);
  } else {
    process.stderr.write(
      `mailroom: ${state.reason}; running the TypeScript sources through tsx (slow start). ` +
        '`npm run build` compiles them.\n',
    );
    await fromSource();
  }
}
