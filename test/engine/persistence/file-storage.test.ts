import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDurableEngine } from '../../../functions/support/engine-data-file.ts';
import { createManualClock } from '../../../lib/clock.ts';
import { encodeRecord, LOG_MAGIC } from '../../../lib/engine/persistence/log-format.ts';

const dirs: string[] = [];
function dataFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'engine-data-'));
  dirs.push(dir);
  return join(dir, 'nested', 'engine.log');
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('openDurableEngine on a file', () => {
  it('creates the file and brings the data back after a restart', () => {
    const path = dataFile();
    const first = openDurableEngine({ path, clock: createManualClock() });
    expect([...readFileSync(path)]).toEqual([...LOG_MAGIC]);
    first.engine.callSync(['SET', 'k', 'v']);
    first.engine.callSync(['HSET', 'h', 'a', '1']);
    first.engine.callSync(['EVAL', "redis.call('incrby', KEYS[1], 7)", '1', 'n']);
    first.close();

    const second = openDurableEngine({ path });
    expect(second.replayed).toBe(3);
    expect(second.engine.callSync(['MGET', 'k', 'n'])).toEqual(['v', '7']);
    expect(second.engine.callSync(['HGETALL', 'h'])).toEqual(['a', '1']);
    second.close();
  });

  it('drops a torn final record left by a crash and truncates it off the file', () => {
    const path = dataFile();
    const first = openDurableEngine({ path });
    first.engine.callSync(['SET', 'kept', 'yes']);
    first.close();
    const intact = statSync(path).size;
    const frame = encodeRecord({ argv: ['SET', 'lost', 'no'], now: 0 });
    appendFileSync(path, frame.subarray(0, 10));

    const second = openDurableEngine({ path });
    expect(second.droppedBytes).toBe(10);
    expect(statSync(path).size).toBe(intact);
    expect(second.engine.callSync(['MGET', 'kept', 'lost'])).toEqual(['yes', null]);
    second.close();
  });

  it('compacts the file in place and restarts from the compacted file', () => {
    const path = dataFile();
    const first = openDurableEngine({ path, compactAfterBytes: 1_000 });
    for (let i = 0; i < 200; i++) first.engine.callSync(['SET', 'counter', String(i)]);
    const grown = statSync(path).size;
    expect(first.compact()).toBe(true);
    expect(statSync(path).size).toBeLessThan(grown / 20);
    first.engine.callSync(['SET', 'after', '1']);
    first.close();

    const second = openDurableEngine({ path });
    expect(second.replayed).toBe(2);
    expect(second.engine.callSync(['MGET', 'counter', 'after'])).toEqual(['199', '1']);
    second.close();
  });
});
