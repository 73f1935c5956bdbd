import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { isProgram } from '../../../functions/support/is-program.ts';

const argv1 = process.argv[1];

afterEach(() => {
  process.argv[1] = argv1 as string;
});

describe('isProgram', () => {
  it('is the program when Node was started with the module itself', () => {
    process.argv[1] = '/app/functions/node.ts';
    expect(isProgram(pathToFileURL('/app/functions/node.ts').href, 'node')).toBe(true);
  });

  it("is the program when started with npm start's bundle of it", () => {
    process.argv[1] = '/app/dist/node.mjs';
    expect(isProgram(pathToFileURL('/app/dist/node.mjs').href, 'node')).toBe(true);
  });

  it('is not the program inside a bundle of another program that imports it', () => {
    process.argv[1] = '/app/dist/bench-serve.mjs';
    expect(isProgram(pathToFileURL('/app/dist/bench-serve.mjs').href, 'node')).toBe(false);
  });

  it('is not the program when imported by another module', () => {
    process.argv[1] = '/app/bench/api/serve.ts';
    expect(isProgram(pathToFileURL('/app/functions/node.ts').href, 'node')).toBe(false);
  });
});
