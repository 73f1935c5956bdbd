/** Stream commands (Redis 7.0 semantics), gathered from the stream-*.ts files. */
import type { CommandSpec } from '../command.ts';
import { streamEntryCommands } from './stream-entries.ts';
import { streamGroupCommands } from './stream-groups.ts';
import { streamInfoCommands } from './stream-info.ts';
import { streamReadCommands } from './stream-read.ts';

export const streamsCommands: readonly CommandSpec[] = [
  ...streamEntryCommands,
  ...streamReadCommands,
  ...streamGroupCommands,
  ...streamInfoCommands,
];
