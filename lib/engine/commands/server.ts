/** Connection and server commands that touch no single key: PING, ECHO, TIME, DBSIZE, FLUSHALL, FLUSHDB. */
import type { CommandHandler, CommandSpec } from '../command.ts';
import { isWord } from '../data/arguments.ts';
import { Errors, fail, OK, StatusReply } from '../reply.ts';

/** FLUSHALL/FLUSHDB take an optional ASYNC or SYNC; both empty the keyspace at once here. */
const flush: CommandHandler = (ctx, argv) => {
  if (argv.length > 2 || (argv.length === 2 && !isWord(argv[1], 'async') && !isWord(argv[1], 'sync'))) {
    fail(Errors.syntax);
  }
  ctx.db.flush();
  return OK;
};

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
    name: 'echo',
    arity: 2,
    write: false,
    handler: (_ctx, argv) => argv[1] ?? '',
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
  {
    name: 'dbsize',
    arity: 1,
    write: false,
    handler: (ctx) => {
      // Counts live keys only: Redis' active expiry would have reclaimed expired ones promptly.
      let count = 0;
      for (const _ of ctx.db.keys()) count++;
      return count;
    },
  },
  { name: 'flushall', arity: -1, write: true, handler: flush },
  { name: 'flushdb', arity: -1, write: true, handler: flush },
];
