import { describe, expect, it } from 'vitest';
import { commandScripts, error, freshEngine, status } from '../../support/command-script.ts';

const { describeScripts, runOnEngine } = commandScripts({ placeholder: '$' });

const OK = status('OK');
const NOT_INTEGER = error('ERR value is not an integer or out of range');

describeScripts('keyspace commands', {
  'DEL and UNLINK count each existing key once': [
    [['SET', '$a', '1'], OK],
    [['SADD', '$b', 'm'], 1],
    [['HSET', '$c', 'f', 'v'], 1],
    [['DEL', '$a', '$a', '$missing', '$b'], 2],
    [['UNLINK', '$c', '$c'], 1],
    [['DEL', '$a'], 0],
  ],
  'EXISTS counts every argument, repeats included': [
    [['SET', '$a', '1'], OK],
    [['EXISTS', '$a', '$a', '$missing'], 2],
    [['EXISTS', '$missing'], 0],
  ],
  'TYPE names each value type as a status and none for a missing key': [
    [['SET', '$s', '1'], OK],
    [['HSET', '$h', 'f', 'v'], 1],
    [['SADD', '$set', 'm'], 1],
    [['ZADD', '$z', '1', 'm'], 1],
    [['TYPE', '$s'], status('string')],
    [['TYPE', '$h'], status('hash')],
    [['TYPE', '$set'], status('set')],
    [['TYPE', '$z'], status('zset')],
    [['TYPE', '$missing'], status('none')],
  ],
  'EXPIRE sets a TTL and TTL/PTTL report -2 for missing and -1 for persistent keys': [
    [['TTL', '$missing'], -2],
    [['PTTL', '$missing'], -2],
    [['EXPIRE', '$missing', '10'], 0],
    [['SET', '$k', 'v'], OK],
    [['TTL', '$k'], -1],
    [['PTTL', '$k'], -1],
    [['EXPIRE', '$k', '100'], 1],
    [['TTL', '$k'], 100],
    [['PEXPIRE', '$k', '200000'], 1],
    [['TTL', '$k'], 200],
    [['PERSIST', '$k'], 1],
    [['PERSIST', '$k'], 0],
    [['PERSIST', '$missing'], 0],
    [['TTL', '$k'], -1],
  ],
  'EXPIRE with a time in the past deletes the key and answers 1': [
    [['SET', '$a', 'v'], OK],
    [['EXPIRE', '$a', '-1'], 1],
    [['EXISTS', '$a'], 0],
    [['SET', '$b', 'v'], OK],
    [['PEXPIREAT', '$b', '1'], 1],
    [['EXISTS', '$b'], 0],
    [['SET', '$c', 'v'], OK],
    [['EXPIREAT', '$c', '0'], 1],
    [['EXISTS', '$c'], 0],
  ],
  'EXPIRE NX, XX, GT and LT compare with the current expiry, no expiry counting as infinite': [
    [['SET', '$k', 'v'], OK],
    [['EXPIRE', '$k', '100', 'XX'], 0],
    [['EXPIRE', '$k', '100', 'GT'], 0],
    [['EXPIRE', '$k', '100', 'nx'], 1],
    [['EXPIRE', '$k', '200', 'NX'], 0],
    [['EXPIRE', '$k', '50', 'GT'], 0],
    [['TTL', '$k'], 100],
    [['EXPIRE', '$k', '50', 'LT'], 1],
    [['TTL', '$k'], 50],
    [['EXPIRE', '$k', '500', 'LT'], 0],
    [['EXPIRE', '$k', '500', 'XX', 'GT'], 1],
    [['TTL', '$k'], 500],
    [['PERSIST', '$k'], 1],
    [['EXPIRE', '$k', '70', 'LT'], 1],
    [['TTL', '$k'], 70],
  ],
  'EXPIRE rejects unknown and incompatible options before reading the time': [
    [['SET', '$k', 'v'], OK],
    [
      ['EXPIRE', '$k', '10', 'NX', 'XX'],
      error('ERR NX and XX, GT or LT options at the same time are not compatible'),
    ],
    [
      ['EXPIRE', '$k', '10', 'NX', 'GT'],
      error('ERR NX and XX, GT or LT options at the same time are not compatible'),
    ],
    [
      ['EXPIRE', '$k', '10', 'lt', 'nx'],
      error('ERR NX and XX, GT or LT options at the same time are not compatible'),
    ],
    [['EXPIRE', '$k', '10', 'GT', 'LT'], error('ERR GT and LT options at the same time are not compatible')],
    [['EXPIRE', '$k', '10', 'foo'], error('ERR Unsupported option foo')],
    [['EXPIRE', '$k', 'abc', 'foo'], error('ERR Unsupported option foo')],
    [['EXPIRE', '$k', 'abc'], NOT_INTEGER],
    [['EXPIRE', '$k', '1.5'], NOT_INTEGER],
    [['TTL', '$k'], -1],
  ],
  'EXPIRE refuses times that overflow 64-bit milliseconds': [
    [['SET', '$k', 'v'], OK],
    [['EXPIRE', '$k', '9223372036854775807'], error("ERR invalid expire time in 'expire' command")],
    [['EXPIRE', '$k', '9223372036854775'], error("ERR invalid expire time in 'expire' command")],
    [['EXPIREAT', '$k', '9223372036854775807'], error("ERR invalid expire time in 'expireat' command")],
    [['PEXPIRE', '$k', '9223372036854775807'], error("ERR invalid expire time in 'pexpire' command")],
    [['EXPIRE', '$k', '-9223372036854775808'], error("ERR invalid expire time in 'expire' command")],
    [['EXPIRE', '$missing', '9223372036854775807'], error("ERR invalid expire time in 'expire' command")],
    [['EXPIRE', '$k', '9223372036854'], 1],
    [['TTL', '$k'], 9223372036854],
  ],
  'EXPIRE works on every value type': [
    [['HSET', '$h', 'f', 'v'], 1],
    [['ZADD', '$z', '1', 'm'], 1],
    [['EXPIRE', '$h', '30'], 1],
    [['PEXPIRE', '$z', '40000'], 1],
    [['TTL', '$h'], 30],
    [['TTL', '$z'], 40],
  ],
  'KEYS matches glob patterns': [
    [['SET', '$hello', '1'], OK],
    [['SET', '$hallo', '1'], OK],
    [['SET', '$hxllo', '1'], OK],
    [['SET', '$hllo', '1'], OK],
    [['SET', '$heeeello', '1'], OK],
    [['SET', '$h*llo', '1'], OK],
    [['KEYS', '$h?llo'], ['$hello', '$hallo', '$hxllo', '$h*llo'], 'unordered'],
    [['KEYS', '$h*llo'], ['$hello', '$hallo', '$hxllo', '$hllo', '$heeeello', '$h*llo'], 'unordered'],
    [['KEYS', '$h[ae]llo'], ['$hello', '$hallo'], 'unordered'],
    [['KEYS', '$h[^e]llo'], ['$hallo', '$hxllo', '$h*llo'], 'unordered'],
    [['KEYS', '$h[a-b]llo'], ['$hallo'], 'unordered'],
    [['KEYS', '$h[b-a]llo'], ['$hallo'], 'unordered'],
    [['KEYS', '$h\\*llo'], ['$h*llo'], 'unordered'],
    [['KEYS', '$h[\\*]llo'], ['$h*llo'], 'unordered'],
    [['KEYS', '$he*'], ['$hello', '$heeeello'], 'unordered'],
    [['KEYS', '$**o'], ['$hello', '$hallo', '$hxllo', '$hllo', '$heeeello', '$h*llo'], 'unordered'],
    [['KEYS', '$nothing*'], []],
    [['KEYS', '$hello'], ['$hello']],
    [['KEYS', '$hell'], []],
    [['KEYS', '$hello[a'], []],
    [['KEYS', '$hell[o'], ['$hello']],
  ],
});

/** Runs a full SCAN and returns every key it listed, checking each page's shape. */
function scanAll(engine: ReturnType<typeof freshEngine>['engine'], options: string[]): string[] {
  const seen: string[] = [];
  let cursor = '0';
  let pages = 0;
  do {
    const reply = engine.callSync(['SCAN', cursor, ...options]) as [string, string[]];
    expect(Array.isArray(reply)).toBe(true);
    cursor = reply[0];
    seen.push(...reply[1]);
    pages++;
    expect(pages).toBeLessThan(10_000);
  } while (cursor !== '0');
  return seen;
}

describe('SCAN on the engine', () => {
  it('visits every key exactly once in pages of about COUNT keys', () => {
    const { engine } = freshEngine();
    for (let i = 0; i < 250; i++) engine.callSync(['SET', `key:${i}`, 'v']);
    const first = engine.callSync(['SCAN', '0', 'COUNT', '20']) as [string, string[]];
    expect(first[0]).not.toBe('0');
    expect(first[1].length).toBeGreaterThanOrEqual(20);
    expect(first[1].length).toBeLessThan(30);
    const seen = scanAll(engine, ['COUNT', '20']);
    expect(seen.length).toBe(250);
    expect(new Set(seen).size).toBe(250);
  });

  it('still returns keys that existed all along when others are added and deleted mid-scan', () => {
    const { engine } = freshEngine();
    for (let i = 0; i < 100; i++) engine.callSync(['SET', `stable:${i}`, 'v']);
    const seen = new Set<string>();
    let cursor = '0';
    let round = 0;
    do {
      const [next, keys] = engine.callSync(['SCAN', cursor, 'COUNT', '7']) as [string, string[]];
      for (const key of keys) seen.add(key);
      engine.callSync(['SET', `churn:${round}`, 'v']);
      engine.callSync(['DEL', `churn:${round - 1}`]);
      cursor = next;
      round++;
    } while (cursor !== '0');
    for (let i = 0; i < 100; i++) expect(seen.has(`stable:${i}`)).toBe(true);
  });

  it('filters pages with MATCH and TYPE', () => {
    const { engine } = freshEngine();
    for (let i = 0; i < 30; i++) {
      engine.callSync(['SET', `s:${i}`, 'v']);
      engine.callSync(['HSET', `h:${i}`, 'f', 'v']);
    }
    expect(scanAll(engine, ['MATCH', 'h:1*']).sort()).toEqual(
      ['h:1', 'h:10', 'h:11', 'h:12', 'h:13', 'h:14', 'h:15', 'h:16', 'h:17', 'h:18', 'h:19'].sort(),
    );
    expect(scanAll(engine, ['TYPE', 'hash', 'COUNT', '5']).length).toBe(30);
    expect(scanAll(engine, ['TYPE', 'HASH', 'MATCH', 's:*'])).toEqual([]);
    expect(scanAll(engine, ['TYPE', 'nosuchtype'])).toEqual([]);
  });

  it('answers an empty keyspace with cursor 0 and no keys', () => {
    const { engine } = freshEngine();
    expect(engine.callSync(['SCAN', '0'])).toEqual(['0', []]);
    expect(engine.callSync(['SCAN', ''])).toEqual(['0', []]);
  });

  it('skips keys that have expired', () => {
    const { engine, clock } = freshEngine();
    engine.callSync(['SET', 'a', 'v', 'PX', '10']);
    engine.callSync(['SET', 'b', 'v']);
    clock.advance(10);
    expect(scanAll(engine, [])).toEqual(['b']);
  });

  it('rejects bad cursors and options with the texts Redis uses', () => {
    runOnEngine([
      [['SCAN', 'abc'], error('ERR invalid cursor')],
      [['SCAN', ' 1'], error('ERR invalid cursor')],
      [['SCAN', '18446744073709551616'], error('ERR invalid cursor')],
      [['SCAN', '0', 'COUNT', '0'], error('ERR syntax error')],
      [['SCAN', '0', 'COUNT', '-1'], error('ERR syntax error')],
      [['SCAN', '0', 'COUNT', 'x'], NOT_INTEGER],
      [['SCAN', '0', 'MATCH'], error('ERR syntax error')],
      [['SCAN', '0', 'TYPE'], error('ERR syntax error')],
      [['SCAN', '0', 'FOO', '1'], error('ERR syntax error')],
      [
        ['SCAN', '-1'],
        ['0', []],
      ],
      [
        ['SCAN', '18446744073709551615', 'COUNT', '1'],
        ['0', []],
      ],
    ]);
  });
});

describe('expiry on the engine clock', () => {
  it('drops a key when the clock reaches its PEXPIRE time and TTL rounds to the nearest second', () => {
    const { engine, clock } = freshEngine();
    engine.callSync(['SET', 'k', 'v']);
    expect(engine.callSync(['PEXPIRE', 'k', '2500'])).toBe(1);
    expect(engine.callSync(['TTL', 'k'])).toBe(3);
    clock.advance(1000);
    expect(engine.callSync(['TTL', 'k'])).toBe(2);
    expect(engine.callSync(['PTTL', 'k'])).toBe(1500);
    clock.advance(1001);
    expect(engine.callSync(['TTL', 'k'])).toBe(0);
    expect(engine.callSync(['PTTL', 'k'])).toBe(499);
    clock.advance(499);
    expect(engine.callSync(['TTL', 'k'])).toBe(-2);
    expect(engine.callSync(['EXISTS', 'k'])).toBe(0);
    expect(engine.callSync(['KEYS', '*'])).toEqual([]);
    expect(engine.callSync(['DBSIZE'])).toBe(0);
  });

  it('takes EXPIREAT and PEXPIREAT as absolute times', () => {
    const { engine, clock } = freshEngine();
    engine.callSync(['SET', 'a', 'v']);
    engine.callSync(['SET', 'b', 'v']);
    expect(engine.callSync(['PEXPIREAT', 'a', String(clock.now() + 1234)])).toBe(1);
    expect(engine.callSync(['PTTL', 'a'])).toBe(1234);
    expect(engine.callSync(['EXPIREAT', 'b', String(Math.floor(clock.now() / 1000) + 60)])).toBe(1);
    expect(engine.callSync(['TTL', 'b'])).toBe(60);
  });

  it('compares GT and LT against the absolute expiry, so an equal time does not count', () => {
    const { engine } = freshEngine();
    engine.callSync(['SET', 'k', 'v', 'EX', '50']);
    expect(engine.callSync(['EXPIRE', 'k', '50', 'GT'])).toBe(0);
    expect(engine.callSync(['EXPIRE', 'k', '50', 'LT'])).toBe(0);
    expect(engine.callSync(['EXPIRE', 'k', '51', 'GT'])).toBe(1);
  });

  it('deletes at once when EXPIRE names the current instant', () => {
    const { engine, clock } = freshEngine();
    engine.callSync(['SET', 'k', 'v']);
    expect(engine.callSync(['PEXPIREAT', 'k', String(clock.now())])).toBe(1);
    expect(engine.callSync(['EXISTS', 'k'])).toBe(0);
  });

  it('checks arity for every key command', () => {
    const arity = (name: string) => error(`ERR wrong number of arguments for '${name}' command`);
    runOnEngine([
      [['DEL'], arity('del')],
      [['EXISTS'], arity('exists')],
      [['TYPE', 'a', 'b'], arity('type')],
      [['EXPIRE', 'a'], arity('expire')],
      [['PERSIST'], arity('persist')],
      [['TTL'], arity('ttl')],
      [['KEYS'], arity('keys')],
      [['SCAN'], arity('scan')],
    ]);
  });
});
