/** hashes commands. */
import type { CommandSpec } from '../command.ts';

export const hashesCommands: readonly CommandSpec[] = [];
