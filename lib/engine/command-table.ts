/** Every command the engine knows, gathered from the per-family files under commands/. */
import type { CommandSpec } from './command.ts';
import { hashesCommands } from './commands/hashes.ts';
import { keysCommands } from './commands/keys.ts';
import { scriptingCommands } from './commands/scripting.ts';
import { serverCommands } from './commands/server.ts';
import { setsCommands } from './commands/sets.ts';
import { sortedSetsCommands } from './commands/sorted-sets.ts';
import { streamsCommands } from './commands/streams.ts';
import { stringsCommands } from './commands/strings.ts';

export const commandTable: readonly CommandSpec[] = [
  ...serverCommands,
  ...keysCommands,
  ...stringsCommands,
  ...hashesCommands,
  ...setsCommands,
  ...sortedSetsCommands,
  ...streamsCommands,
  ...scriptingCommands,
];
