#!/usr/bin/env node
// `esq`, the queue's command line (functions/cli/esq.ts), run from source through tsx: the project
// ships TypeScript, and tsx is what `npm start` runs it with too.
import { register } from 'tsx/esm/api';

register();
await import('../functions/cli/esq.ts');
