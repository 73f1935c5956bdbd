#!/usr/bin/env node
// `esq` in this repository (`npx esq`): the command line (functions/cli/esq.ts) run from source
// through tsx, a devDependency. The client package (`npm run pack:client`) ships the same source
// bundled for plain Node as dist/esq.js, with nothing to install.
import { register } from 'tsx/esm/api';

register();
await import('../functions/cli/esq.ts');
