/** Named keys and arguments go out in header order; replies come back named and type-checked. */
import { describe, expect, it } from 'vitest';
import { decodeTuple, encodeParams, ReplyShapeError } from '../../lib/queue/script-binding.ts';
import { parseHeader } from '../../scripts/generate-lua.ts';

const header = (lines: string[]) => parseHeader(lines, 'test-2.lua');

describe('script headers', () => {
  it('reads keys, arguments with kinds and rest groups, the reply and the errors', () => {
    const parsed = header([
      '-- test: a script',
      '-- KEYS: stream, config, ...groups: {lease, meta}, ...dedup',
      '-- ARGV: group, count: int, config: json, groups: json, ...ids',
      '-- Returns: deadLettered: int, pending: {name: string, n: int}[]?,',
      '--   ...messages: {id: string, fields: fields}',
      '--   (a note that is not part of the type)',
      '-- Errors: GROUP_NOT_FOUND',
      'return 1',
    ]);
    expect(parsed.keys).toEqual({
      fixed: [
        ['stream', 'string'],
        ['config', 'string'],
      ],
      lists: [
        [
          'groups',
          [
            ['lease', 'string'],
            ['meta', 'string'],
          ],
        ],
      ],
      rest: ['dedup', 'string'],
    });
    expect(parsed.args).toEqual({
      fixed: [
        ['group', 'string'],
        ['count', 'int'],
        ['config', 'json'],
        ['groups', 'json'],
      ],
      rest: ['ids', 'string'],
    });
    expect(parsed.reply).toEqual({
      fields: [
        ['deadLettered', 'int'],
        [
          'pending',
          {
            nullable: {
              list: {
                tuple: {
                  fields: [
                    ['name', 'string'],
                    ['n', 'int'],
                  ],
                },
              },
            },
          },
        ],
      ],
      rest: [
        'messages',
        {
          tuple: {
            fields: [
              ['id', 'string'],
              ['fields', 'fields'],
            ],
          },
        },
      ],
    });
    expect(parsed.errors).toEqual(['GROUP_NOT_FOUND']);
    expect(parsed.end).toBe(7);
  });

  it('refuses unknown types, Lua keywords as names, undeclared error codes and a missing tag', () => {
    expect(() => header(['-- KEYS: stream', '-- ARGV: none', '-- Returns: x: number'])).toThrow(
      /unknown type number/,
    );
    expect(() => header(['-- KEYS: stream', '-- ARGV: end', '-- Returns: nothing'])).toThrow(
      /not a usable name/,
    );
    expect(() =>
      header(['-- KEYS: stream', '-- ARGV: none', '-- Returns: nothing', '-- Errors: NOPE']),
    ).toThrow(/not a QueueErrorCode/);
    expect(() => header(['-- KEYS: stream', '-- Returns: nothing'])).toThrow(/no ARGV/);
  });

  it('takes only the key names lib/queue/keys.ts gives, and group keys with the names of their groups', () => {
    const keys =
      (text: string, args = 'none') =>
      () =>
        header([`-- KEYS: ${text}`, `-- ARGV: ${args}`, '-- Returns: nothing']);
    expect(keys('stream, index')).toThrow(/no key is named index/);
    expect(keys('stream, ...leases')).toThrow(/not a list of keys/);
    expect(keys('stream, ...groups: {lease, state}', '...groups')).toThrow(/no group key is named state/);
    expect(keys('stream, ...groups: {lease}')).toThrow(/ARGV groups names/);
    // A list before the last is as long as the ARGV list of its name.
    expect(keys('stream, ...dedup, ...groups: {lease}', '...groups')).toThrow(/ARGV needs a list dedup/);
    expect(keys('stream, ...groups: {lease}, ...dedup', 'groups: json')()).toMatchObject({
      keys: { lists: [['groups', [['lease', 'string']]]], rest: ['dedup', 'string'] },
    });
  });
});

describe('encodeParams', () => {
  it('flattens named values in header order, rest groups field by field', () => {
    const shape = {
      fixed: [
        ['group', 'string'],
        ['count', 'int'],
        ['config', 'json'],
      ] as const,
      rest: [
        'messages',
        [
          ['body', 'string'],
          ['delayMs', 'int'],
        ],
      ] as const,
    };
    expect(
      encodeParams(shape, {
        count: 5,
        group: 'g',
        config: { a: 1 },
        messages: [
          { body: '"x"', delayMs: 0 },
          { body: '2', delayMs: 10 },
        ],
      }),
    ).toEqual(['g', '5', '{"a":1}', '"x"', '0', '2', '10']);
  });

  it('refuses a fractional int and a missing string rather than send them', () => {
    expect(() => encodeParams({ fixed: [['count', 'int']] }, { count: 1.5 })).toThrow(/safe integer/);
    expect(() => encodeParams({ fixed: [['group', 'string']] }, {})).toThrow(/must be a string/);
  });
});

describe('decodeTuple', () => {
  const shape = {
    fields: [
      ['created', 'flag'],
      ['count', 'int'],
      ['min', { nullable: 'string' }],
    ],
    rest: ['ids', 'string'],
  } as const;

  it('names each value and gathers the rest', () => {
    expect(decodeTuple(shape, ['ok', 1, '7', null, 'a', 'b'], 1, 'test')).toEqual({
      created: true,
      count: 7,
      min: null,
      ids: ['a', 'b'],
    });
  });

  it('refuses a value of the wrong type, with its path', () => {
    expect(() => decodeTuple(shape, ['ok', 2, 1, null], 1, 'test')).toThrow(ReplyShapeError);
    expect(() => decodeTuple(shape, ['ok', 1, 'x', null], 1, 'test')).toThrow(
      /test\.count: expected an integer/,
    );
    expect(() => decodeTuple(shape, ['ok', 1, 1, null, 5], 1, 'test')).toThrow(
      /test\.ids\[0\]: expected a string/,
    );
  });

  it('refuses too few values, and too many when there is no rest', () => {
    expect(() => decodeTuple(shape, ['ok', 1], 1, 'test')).toThrow(/expected 3 or more values, got 1/);
    expect(() => decodeTuple({ fields: [['n', 'int']] }, ['ok', 1, 2], 1, 'test')).toThrow(
      /expected 1 values, got 2/,
    );
  });
});
