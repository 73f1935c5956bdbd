/** strings commands. */
import type { CommandSpec } from '../command.ts';

export const stringsCommands: readonly CommandSpec[] = [];
