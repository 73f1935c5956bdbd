/** streams commands. */
import type { CommandSpec } from '../command.ts';

export const streamsCommands: readonly CommandSpec[] = [];
