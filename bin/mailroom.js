#!/usr/bin/env node
// The `mailroom` command. The TypeScript sources are loaded through tsx (a runtime dependency),
// so there is no build step between a checkout and a running appliance, and no stale build.
import { register } from 'tsx/esm/api';

register();
await import('../cli/main.ts');
