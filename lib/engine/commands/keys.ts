/** keys commands. */
import type { CommandSpec } from '../command.ts';

export const keysCommands: readonly CommandSpec[] = [];
