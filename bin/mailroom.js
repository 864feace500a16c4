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
import { fileURLToPath } from 'node:url';
import { buildState } from './build-state.js';

const root = fileURLToPath(new URL('..', import.meta.url));

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
  } else if (process.env.NODE_ENV === 'production' || process.env.MAILROOM_ENV === 'production') {
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
