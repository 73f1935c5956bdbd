/** scripting commands. */
import type { CommandSpec } from '../command.ts';

export const scriptingCommands: readonly CommandSpec[] = [];
