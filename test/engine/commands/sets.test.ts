import { describe, it } from 'vitest';
import { commandScripts, error, status } from '../../support/command-script.ts';

const { describeScripts, runOnEngine } = commandScripts({ placeholder: '$' });

const WRONGTYPE = error('WRONGTYPE Operation against a key holding the wrong kind of value');

describeScripts('set commands', {
  'SADD counts new members and SCARD and SISMEMBER see them': [
    [['SADD', '$s', 'a', 'b', 'a'], 2],
    [['SADD', '$s', 'b', 'c'], 1],
    [['SCARD', '$s'], 3],
    [['SISMEMBER', '$s', 'a'], 1],
    [['SISMEMBER', '$s', 'z'], 0],
    [['SISMEMBER', '$missing', 'a'], 0],
    [['SCARD', '$missing'], 0],
    [['SMEMBERS', '$s'], ['a', 'b', 'c'], 'unordered'],
    [['SMEMBERS', '$missing'], []],
  ],
  'SMEMBERS lists a small set of integers in numeric order': [
    [['SADD', '$s', '10', '-3', '2', '0', '100'], 5],
    [
      ['SMEMBERS', '$s'],
      ['-3', '0', '2', '10', '100'],
    ],
  ],
  'SREM counts removed members and deletes the key with its last member': [
    [['SADD', '$s', 'a', 'b'], 2],
    [['SREM', '$s', 'a', 'a', 'x'], 1],
    [['SREM', '$s', 'b'], 1],
    [['EXISTS', '$s'], 0],
    [['SREM', '$s', 'b'], 0],
    [['SREM', '$missing', 'b'], 0],
  ],
  'every set command refuses a key of another type': [
    [['SET', '$k', 'v'], status('OK')],
    [['SADD', '$k', 'a'], WRONGTYPE],
    [['SREM', '$k', 'a'], WRONGTYPE],
    [['SMEMBERS', '$k'], WRONGTYPE],
    [['SISMEMBER', '$k', 'a'], WRONGTYPE],
    [['SCARD', '$k'], WRONGTYPE],
  ],
});

describe('set command arity on the engine', () => {
  it('answers the arity error for every set command', () => {
    const arity = (name: string) => error(`ERR wrong number of arguments for '${name}' command`);
    runOnEngine([
      [['SADD', 's'], arity('sadd')],
      [['SREM', 's'], arity('srem')],
      [['SMEMBERS'], arity('smembers')],
      [['SISMEMBER', 's'], arity('sismember')],
      [['SCARD', 's', 'x'], arity('scard')],
    ]);
  });
});
