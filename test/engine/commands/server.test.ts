import { describe, expect, it } from 'vitest';
import { commandScripts, error, freshEngine, status } from '../../support/command-script.ts';

const { describeScripts, runOnEngine } = commandScripts({ placeholder: '$' });

describeScripts('server commands', {
  'PING answers PONG or echoes its argument, ECHO echoes': [
    [['PING'], status('PONG')],
    [['ping', 'hi there'], 'hi there'],
    [['PING', 'a', 'b'], error("ERR wrong number of arguments for 'ping' command")],
    [['ECHO', ''], ''],
    [['ECHO', 'hello'], 'hello'],
    [['ECHO'], error("ERR wrong number of arguments for 'echo' command")],
    [['ECHO', 'a', 'b'], error("ERR wrong number of arguments for 'echo' command")],
    [['DBSIZE', 'x'], error("ERR wrong number of arguments for 'dbsize' command")],
    [['TIME', 'x'], error("ERR wrong number of arguments for 'time' command")],
  ],
});

// FLUSHALL and FLUSHDB never run on the shared server, so they are checked on the engine only.
describe('server commands on the engine', () => {
  it('answers TIME as seconds and microseconds of the injected clock', () => {
    const { engine, clock } = freshEngine();
    clock.set(1_700_000_123_456);
    expect(engine.callSync(['TIME'])).toEqual(['1700000123', '456000']);
    clock.set(1_700_000_124_000);
    expect(engine.callSync(['TIME'])).toEqual(['1700000124', '0']);
  });

  it('counts live keys with DBSIZE, leaving out expired ones', () => {
    const { engine, clock } = freshEngine();
    expect(engine.callSync(['DBSIZE'])).toBe(0);
    engine.callSync(['SET', 'a', '1']);
    engine.callSync(['SADD', 'b', 'm']);
    engine.callSync(['SET', 'c', '1', 'PX', '5']);
    expect(engine.callSync(['DBSIZE'])).toBe(3);
    clock.advance(5);
    expect(engine.callSync(['DBSIZE'])).toBe(2);
  });

  it('empties the keyspace with FLUSHALL and FLUSHDB, with or without ASYNC/SYNC', () => {
    const { engine } = freshEngine();
    const fill = () => {
      engine.callSync(['SET', 'a', '1']);
      engine.callSync(['ZADD', 'z', '1', 'm']);
    };
    for (const argv of [['FLUSHALL'], ['FLUSHDB'], ['flushall', 'async'], ['FLUSHDB', 'SYNC']]) {
      fill();
      expect(engine.callSync(['DBSIZE'])).toBe(2);
      runOnEngine([[argv, status('OK')]], engine);
      expect(engine.callSync(['DBSIZE'])).toBe(0);
    }
  });

  it('rejects anything but ASYNC or SYNC after FLUSHALL and FLUSHDB, keeping the data', () => {
    const { engine } = freshEngine();
    engine.callSync(['SET', 'a', '1']);
    runOnEngine(
      [
        [['FLUSHALL', 'foo'], error('ERR syntax error')],
        [['FLUSHDB', 'SYNC', 'x'], error('ERR syntax error')],
        [['FLUSHALL', 'ASYNC', 'ASYNC'], error('ERR syntax error')],
        [['DBSIZE'], 1],
      ],
      engine,
    );
  });

  it('logs FLUSHALL as a write so a replayed log empties the keyspace too', () => {
    const { engine } = freshEngine();
    const written: string[] = [];
    engine.setWriteListener((record) => written.push(record.argv.join(' ')));
    engine.callSync(['PING']);
    engine.callSync(['FLUSHALL']);
    engine.callSync(['FLUSHDB', 'bad']);
    expect(written).toEqual(['FLUSHALL']);
  });
});
