/** sorted-sets commands. */
import type { CommandSpec } from '../command.ts';

export const sortedSetsCommands: readonly CommandSpec[] = [];
