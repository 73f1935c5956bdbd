/** Stream commands (Redis 7.0 semantics), gathered from the stream-*.ts files. */
import type { CommandSpec } from '../command.ts';
import { streamEntryCommands } from './stream-entries.ts';
import { streamInfoCommands } from './stream-info.ts';

export const streamsCommands: readonly CommandSpec[] = [...streamEntryCommands, ...streamInfoCommands];
