/** The pieces XGROUP and XINFO share as container commands: HELP replies and subcommand arity. */
import { type Reply, StatusReply } from '../reply.ts';

/**
 * A subcommand's arity for the engine, given Redis' (which counts the container's name too):
 * the engine checks a subcommand against argc without the container's name.
 */
export function subcommandArity(redisArity: number): number {
  return redisArity > 0 ? redisArity - 1 : redisArity + 1;
}

/** addReplyHelp: a header, the lines, and the HELP entry, all as status replies. */
export function helpReply(command: string, lines: readonly string[]): Reply {
  return [
    `${command} <subcommand> [<arg> [value] [opt] ...]. Subcommands are:`,
    ...lines,
    'HELP',
    '    Prints this help.',
  ].map((line) => new StatusReply(line));
}
