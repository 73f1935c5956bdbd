/** sets commands. */
import type { CommandSpec } from '../command.ts';

export const setsCommands: readonly CommandSpec[] = [];
