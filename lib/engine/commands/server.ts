/** Connection and server commands that touch no single type: PING, TIME. */
import type { CommandSpec } from '../command.ts';
import { Errors, fail, StatusReply } from '../reply.ts';

export const serverCommands: readonly CommandSpec[] = [
  {
    name: 'ping',
    arity: -1,
    write: false,
    handler: (_ctx, argv) => {
      if (argv.length > 2) fail(Errors.arity('ping'));
      return argv[1] ?? new StatusReply('PONG');
    },
  },
  {
    name: 'time',
    arity: 1,
    write: false,
    handler: (ctx) => {
      const seconds = Math.floor(ctx.now / 1000);
      return [String(seconds), String((ctx.now - seconds * 1000) * 1000)];
    },
  },
];
