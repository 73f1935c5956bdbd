import { describe, expect, it } from 'vitest';
import {
  call,
  commandScripts,
  error,
  fill,
  freshEngine,
  INVALID_ID,
  MAX,
  MAX_ID,
  NOT_INTEGER,
  OK,
  WRONGTYPE,
} from '../../support/command-script.ts';

const { describeScripts, runSteps } = commandScripts({ placeholder: '@', keyTag: 'streamtest' });

const ARITY = error("ERR wrong number of arguments for 'xadd' command");
const NOT_GREATER = error('ERR The ID specified in XADD is equal or smaller than the target stream top item');
const ZERO_ID = error('ERR The ID specified in XADD must be greater than 0-0');

describeScripts('XADD', {
  'adds entries with explicit ids and answers each id': [
    [['XADD', '@s', '1-1', 'f', 'v'], '1-1'],
    [['XADD', '@s', '1-2', 'a', '1', 'b', '2'], '1-2'],
    [['XADD', '@s', '5', 'f', 'v'], '5-0'],
    [['XLEN', '@s'], 3],
    [
      ['XRANGE', '@s', '-', '+'],
      [
        ['1-1', ['f', 'v']],
        ['1-2', ['a', '1', 'b', '2']],
        ['5-0', ['f', 'v']],
      ],
    ],
  ],
  'parses ids the way strtoull does, oddities included': [
    [['XADD', '@s', '+5', 'f', 'v'], '5-0'],
    [['XADD', '@s', ' 10', 'f', 'v'], '10-0'],
    [['XADD', '@s', '11-+3', 'f', 'v'], '11-3'],
    [['XADD', '@s', '12--0', 'f', 'v'], '12-0'],
    [['XADD', '@s', '13- -3', 'f', 'v'], '13-18446744073709551613'],
    [['XADD', '@s', '14- -9223372036854775809', 'f', 'v'], '14-9223372036854775807'],
    [['XADD', '@s', '0015-007', 'f', 'v'], '15-7'],
    [['XADD', '@s', '-5', 'f', 'v'], INVALID_ID],
    [['XADD', '@s', '20-', 'f', 'v'], INVALID_ID],
    [['XADD', '@s', '20--3', 'f', 'v'], INVALID_ID],
    [['XADD', '@s', '20-5-3', 'f', 'v'], INVALID_ID],
    [['XADD', '@s', '1a', 'f', 'v'], INVALID_ID],
    [['XADD', '@s', '0x10', 'f', 'v'], INVALID_ID],
    [['XADD', '@s', '18446744073709551616', 'f', 'v'], INVALID_ID],
    [['XADD', '@s', `${MAX}-18446744073709551616`, 'f', 'v'], INVALID_ID],
    [['XADD', '@s', '20- -18446744073709551616', 'f', 'v'], INVALID_ID],
    [['XADD', '@s', '1'.repeat(128), 'f', 'v'], INVALID_ID],
    [['XADD', '@s', '', 'f', 'v'], INVALID_ID],
    [['XADD', '@s', '-', 'f', 'v'], INVALID_ID],
    [['XADD', '@s', '+', 'f', 'v'], INVALID_ID],
    [['XADD', '@s', '*-1', 'f', 'v'], INVALID_ID],
    [['XADD', '@s', '20-**', 'f', 'v'], INVALID_ID],
    [['XLEN', '@s'], 7],
  ],
  'takes ms-* as the next sequence within the last ms, and ms-0 for a later ms': [
    [['XADD', '@s', '123-456', 'f', 'v'], '123-456'],
    [['XADD', '@s', '123-*', 'f', 'v'], '123-457'],
    [['XADD', '@s', '789-*', 'f', 'v'], '789-0'],
    [['XADD', '@s', '789-*', 'f', 'v'], '789-1'],
    [['XADD', '@s', '42-*', 'f', 'v'], NOT_GREATER],
    [['XADD', '@t', '0-*', 'f', 'v'], '0-1'],
    [['XADD', '@t', '0-*', 'f', 'v'], '0-2'],
  ],
  'refuses 0-0 before looking at the key, so nothing is created and WRONGTYPE comes second': [
    [['XADD', '@s', '0-0', 'f', 'v'], ZERO_ID],
    [['XADD', '@s', '0', 'f', 'v'], ZERO_ID],
    [['EXISTS', '@s'], 0],
    [['SET', '@str', 'x'], OK],
    [['XADD', '@str', '0-0', 'f', 'v'], ZERO_ID],
    [['XADD', '@str', '1-0', 'f', 'v'], WRONGTYPE],
    [['XADD', '@str', 'MAXLEN', 'x', '*', 'f', 'v'], NOT_INTEGER],
  ],
  'refuses ids equal to or below the top entry': [
    [['XADD', '@s', '5-5', 'f', 'v'], '5-5'],
    [['XADD', '@s', '5-5', 'f', 'v'], NOT_GREATER],
    [['XADD', '@s', '5-4', 'f', 'v'], NOT_GREATER],
    [['XADD', '@s', '4', 'f', 'v'], NOT_GREATER],
    [['XADD', '@s', '5-6', 'f', 'v'], '5-6'],
    [['XLEN', '@s'], 2],
  ],
  'runs out of ids at the maximum, and ms-* runs out of sequences in its ms': [
    [['XADD', '@s', MAX_ID, 'f', 'v'], MAX_ID],
    [
      ['XADD', '@s', '*', 'f', 'v'],
      error('ERR The stream has exhausted the last possible ID, unable to add more items'),
    ],
    [
      ['XADD', '@s', '5-*', 'f', 'v'],
      error('ERR The stream has exhausted the last possible ID, unable to add more items'),
    ],
    [['XADD', '@u', `${MAX}-5`, 'f', 'v'], `${MAX}-5`],
    [['XADD', '@u', `${MAX}-*`, 'f', 'v'], `${MAX}-6`],
  ],
  'with NOMKSTREAM answers nil for a missing key and creates nothing': [
    [['XADD', '@s', 'NOMKSTREAM', '*', 'f', 'v'], null],
    [['XADD', '@s', 'nomkstream', 'MAXLEN', '5', '1-0', 'f', 'v'], null],
    [['EXISTS', '@s'], 0],
    [['XADD', '@s', '1-0', 'f', 'v'], '1-0'],
    [['XADD', '@s', 'NOMKSTREAM', '2-0', 'f', 'v'], '2-0'],
    [['XLEN', '@s'], 2],
  ],
  'checks the field list after the options': [
    [['XADD', '@s', '*', 'f'], ARITY],
    [['XADD', '@s', '1-0', 'f', 'v', 'g'], ARITY],
    [['XADD', '@s', 'MAXLEN', '5', '*'], ARITY],
    [['XADD', '@s', 'MAXLEN', '5', 'f', 'v'], INVALID_ID],
    [['XADD', '@s', 'maxlen'], ARITY],
    [['XADD', '@s', 'NOMKSTREAM', 'f', 'v'], INVALID_ID],
    [['EXISTS', '@s'], 0],
  ],
  'reports option errors in Redis order': [
    [
      ['XADD', '@s', 'MAXLEN', '5', 'MINID', '1', '*', 'f', 'v'],
      error('ERR syntax error, MAXLEN and MINID options at the same time are not compatible'),
    ],
    [
      ['XADD', '@s', 'MINID', '1', 'MAXLEN', 'x', '*', 'f', 'v'],
      error('ERR syntax error, MAXLEN and MINID options at the same time are not compatible'),
    ],
    [['XADD', '@s', 'MAXLEN', 'x', '*', 'f', 'v'], NOT_INTEGER],
    [['XADD', '@s', 'MAXLEN', '~', '-1', '*', 'f', 'v'], error('ERR The MAXLEN argument must be >= 0.')],
    [['XADD', '@s', 'MINID', '=', '-', '*', 'f', 'v'], INVALID_ID],
    [['XADD', '@s', 'LIMIT', 'x', '*', 'f', 'v'], NOT_INTEGER],
    [['XADD', '@s', 'LIMIT', '-1', '*', 'f', 'v'], error('ERR The LIMIT argument must be >= 0.')],
    [
      ['XADD', '@s', 'LIMIT', '5', '*', 'f', 'v'],
      error('ERR syntax error, LIMIT cannot be used without specifying a trimming strategy'),
    ],
    [
      ['XADD', '@s', 'LIMIT', '0', '*', 'f', 'v'],
      error('ERR syntax error, LIMIT cannot be used without the special ~ option'),
    ],
    [
      ['XADD', '@s', 'MAXLEN', '5', 'LIMIT', '5', '*', 'f', 'v'],
      error('ERR syntax error, LIMIT cannot be used without the special ~ option'),
    ],
    [
      ['XADD', '@s', 'MAXLEN', '=', '5', 'LIMIT', '5', '*', 'f', 'v'],
      error('ERR syntax error, LIMIT cannot be used without the special ~ option'),
    ],
    [['XADD', '@s', 'MAXLEN', '~', '5', 'LIMIT', '5', '1-0', 'f', 'v'], '1-0'],
    [['XADD', '@s', 'MAXLEN', '~', '*', 'f', 'v'], NOT_INTEGER],
    [['XLEN', '@s'], 1],
  ],
  'trims exactly with MAXLEN and MINID, with or without =': [
    ...fill('@s', 10),
    [['XADD', '@s', 'MAXLEN', '5', '11-0', 'f', 'v11'], '11-0'],
    [['XLEN', '@s'], 5],
    [['XRANGE', '@s', '-', '+', 'COUNT', '1'], [['7-0', ['f', 'v7']]]],
    [['XADD', '@s', 'MAXLEN', '=', '3', '12-0', 'f', 'v12'], '12-0'],
    [['XRANGE', '@s', '-', '+', 'COUNT', '1'], [['10-0', ['f', 'v10']]]],
    [['XADD', '@s', 'MINID', '12', '13-0', 'f', 'v13'], '13-0'],
    [['XLEN', '@s'], 2],
    [['XADD', '@s', 'MINID', '=', '100', '14-0', 'f', 'v14'], '14-0'],
    [['XLEN', '@s'], 0],
    [['EXISTS', '@s'], 1],
    [['XADD', '@s', 'MAXLEN', '0', '15-0', 'f', 'v'], '15-0'],
    [['XLEN', '@s'], 0],
    [['EXISTS', '@s'], 1],
  ],
  'trims with ~ only whole nodes of 100 entries, up to LIMIT entries': [
    ...fill('@s', 250),
    [['XADD', '@s', 'MAXLEN', '~', '120', '251-0', 'f', 'v'], '251-0'],
    [['XLEN', '@s'], 151],
    [['XADD', '@s', 'MAXLEN', '~', '10', '252-0', 'f', 'v'], '252-0'],
    [['XLEN', '@s'], 52],
    [['XADD', '@s', 'MAXLEN', '~', '0', '253-0', 'f', 'v'], '253-0'],
    [['XLEN', '@s'], 0],
    ...fill('@t', 300),
    [['XADD', '@t', 'MAXLEN', '~', '0', 'LIMIT', '150', '301-0', 'f', 'v'], '301-0'],
    [['XLEN', '@t'], 201],
    [['XADD', '@t', 'MINID', '~', '250', 'LIMIT', '0', '302-0', 'f', 'v'], '302-0'],
    [['XLEN', '@t'], 102],
    [['XADD', '@t', 'MINID', '~', '302', '303-0', 'f', 'v'], '303-0'],
    [['XLEN', '@t'], 3],
  ],
});

describe('XADD with the clock', () => {
  it('makes * ids from the clock, moving the sequence on within a millisecond', () => {
    const { engine, clock } = freshEngine();
    const now = clock.now();
    expect(call(engine, 'XADD', 's', '*', 'f', 'v')).toBe(`${now}-0`);
    expect(call(engine, 'XADD', 's', '*', 'f', 'v')).toBe(`${now}-1`);
    clock.advance(5);
    expect(call(engine, 'XADD', 's', '*', 'f', 'v')).toBe(`${now + 5}-0`);
    // The clock going back never makes ids go back.
    clock.set(now - 1000);
    expect(call(engine, 'XADD', 's', '*', 'f', 'v')).toBe(`${now + 5}-1`);
    expect(call(engine, 'XADD', 's', `${now + 5}-*`, 'f', 'v')).toBe(`${now + 5}-2`);
  });

  it('rolls * over into the next millisecond past the last sequence', () => {
    const { engine, clock } = freshEngine();
    runSteps(engine, [
      [['XADD', 's', `${clock.now()}-${MAX}`, 'f', 'v'], `${clock.now()}-${MAX}`],
      [['XADD', 's', '*', 'f', 'v'], `${clock.now() + 1}-0`],
      [['XADD', 't', `9999999999999999999-${MAX}`, 'f', 'v'], `9999999999999999999-${MAX}`],
      [['XADD', 't', '*', 'f', 'v'], '10000000000000000000-0'],
      [['XADD', 't', '*', 'f', 'v'], '10000000000000000000-1'],
    ]);
  });

  // On the server these answers depend on errno as earlier commands of any client (and accepting
  // a connection) left it, so they are checked here only. The sequence gives these answers on a
  // quiet 7.0.15 server over one connection.
  it('words the ms-* sequence overflow from the last errno, as 7.0.15 does', () => {
    const { engine } = freshEngine();
    runSteps(engine, [
      // Parsing the maximum goes through strtoull, which zeroes errno.
      [['XADD', 't', `5-${MAX}`, 'f', 'v'], `5-${MAX}`],
      [['XADD', 't', '5-*', 'f', 'v'], error('ERR Elements are too large to be stored')],
      // A refused id leaves EDOM behind, and the overflow then reads as that refusal.
      [['XADD', 't', '4-0', 'f', 'v'], NOT_GREATER],
      [['XADD', 't', '5-*', 'f', 'v'], NOT_GREATER],
      [['XADD', 't', '5-*', 'f', 'v'], NOT_GREATER],
      // Any id that takes the strtoull path resets it.
      [['XDEL', 't', ' 9'], 0],
      [['XADD', 't', '5-*', 'f', 'v'], error('ERR Elements are too large to be stored')],
      [['XADD', 't', '6-*', 'f', 'v'], '6-0'],
    ]);
  });

  it('logs the write with the argv it ran', () => {
    const { engine } = freshEngine();
    const written: string[][] = [];
    engine.setWriteListener((record) => written.push([...record.argv]));
    engine.callSync(['XADD', 's', '*', 'f', 'v']);
    engine.callSync(['XADD', 's', '0-0', 'f', 'v']);
    engine.callSync(['XLEN', 's']);
    expect(written).toEqual([['XADD', 's', '*', 'f', 'v']]);
  });
});
