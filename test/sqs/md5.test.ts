/** The MD5s SQS answers: the plain MD5 against node:crypto, and MD5OfMessageAttributes against AWS's vectors. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { md5Hex } from '../../lib/sqs/md5.ts';
import {
  attributesMd5,
  parseMessageAttributes,
  parseSystemAttributes,
} from '../../lib/sqs/message-attributes.ts';

describe('md5Hex', () => {
  it('matches node:crypto on every length around the block and padding boundaries, and on random bytes', () => {
    for (let length = 0; length <= 200; length++) {
      const bytes = new Uint8Array(length).map((_, i) => (i * 31 + length) & 0xff);
      expect(md5Hex(bytes)).toBe(createHash('md5').update(bytes).digest('hex'));
    }
    for (let round = 0; round < 20; round++) {
      const bytes = crypto.getRandomValues(new Uint8Array(1 + Math.floor(Math.random() * 65_536)));
      expect(md5Hex(bytes)).toBe(createHash('md5').update(bytes).digest('hex'));
    }
  });

  it('hashes text as UTF-8 (the body of the reference example, non-ASCII, astral)', () => {
    expect(md5Hex('Hello, world!')).toBe('6cd3556deb0da54bca060b4c39479839');
    expect(md5Hex('')).toBe('d41d8cd98f00b204e9800998ecf8427e');
    for (const text of ['Grüße, 世界', '😀'.repeat(100), 'x'.repeat(1_000_000)]) {
      expect(md5Hex(text)).toBe(createHash('md5').update(text, 'utf8').digest('hex'));
    }
  });
});

describe('MD5OfMessageAttributes', () => {
  const md5Of = (raw: unknown) => attributesMd5(parseMessageAttributes(raw));

  it('reproduces the values AWS answers', () => {
    expect(md5Of({ City: { DataType: 'String', StringValue: 'Any City' } })).toBe(
      '0c32cb5c844c01fbd5b6b434b52cf670',
    );
    expect(md5Of({ k: { DataType: 'String', StringValue: 'x' } })).toBe('a45daa70926828a2f0a1db3418e6feb4');
    expect(md5Of({ n: { DataType: 'Number', StringValue: '42' } })).toBe('30e7543857de47826ea2a48bbec32fd7');
    expect(md5Of({ n: { DataType: 'String.custom', StringValue: '42' } })).toBe(
      'c4e0717324723ac66cb5fe1faf989c93',
    );
    expect(md5Of({ bin: { DataType: 'Binary', BinaryValue: 'AQID' } })).toBe(
      '0813d5b7cc27c63fe2a9e3ef9467abf2',
    );
    const trace = parseSystemAttributes({
      AWSTraceHeader: {
        DataType: 'String',
        StringValue: 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1',
      },
    });
    expect(attributesMd5(trace)).toBe('5ae4d5d7636402d80f4eb6d213245a88');
  });

  it('reproduces Amazon sample vectors, whatever order the attributes come in', () => {
    const sample = {
      test_attribute_name_2: { DataType: 'String', StringValue: 'test_attribute_value_2' },
      test_attribute_name_1: { DataType: 'String', StringValue: 'test_attribute_value_1' },
    };
    expect(md5Of(sample)).toBe('d53f3b558fe951154770f25cb63dbba9');
    const binary = { test_attribute_name: { DataType: 'Binary', BinaryValue: btoa('test_attribute_value') } };
    expect(md5Of(binary)).toBe('23f6bd27ea87aab7dfeadcc9aebee495');
  });

  it('is absent without attributes', () => {
    expect(md5Of(undefined)).toBeUndefined();
    expect(md5Of({})).toBeUndefined();
  });
});
