/**
 * Validates request bodies into argv arrays. A command is a non-empty JSON array of strings,
 * numbers or booleans; numbers and booleans become their string form, as Redis would print them
 * (`1.5` → "1.5", `true` → "true"). The client sends JS numbers through `JSON.stringify`, whose
 * text `String()` reproduces exactly, so no digits are lost on the way.
 */
import { ProtocolError } from './protocol-error.ts';

/** Parses the raw body text; anything that is not JSON is a 400, never an exception. */
export function parseJsonBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ProtocolError(400, 'ERR failed to parse the request body: it is not valid JSON');
  }
}

/** Body of `POST /`: one command. */
export function parseCommand(body: unknown): string[] {
  return toArgv(body, '');
}

/** Body of `POST /pipeline` and `POST /multi-exec`: a non-empty array of commands. */
export function parseCommandList(body: unknown): string[][] {
  if (!Array.isArray(body)) {
    throw new ProtocolError(400, 'ERR the request body must be a JSON array of commands');
  }
  if (body.length === 0) throw new ProtocolError(400, 'ERR the pipeline is empty: send at least one command');
  return body.map((command, index) => toArgv(command, `command ${index + 1}: `));
}

function toArgv(command: unknown, where: string): string[] {
  if (!Array.isArray(command)) {
    throw new ProtocolError(
      400,
      `ERR ${where}a command must be a JSON array of strings, numbers or booleans`,
    );
  }
  if (command.length === 0) throw new ProtocolError(400, `ERR ${where}the command is empty`);
  return command.map((arg: unknown, index) => {
    if (typeof arg === 'string') return arg;
    if (typeof arg === 'number' || typeof arg === 'boolean') return String(arg);
    const kind = arg === null ? 'null' : Array.isArray(arg) ? 'an array' : 'an object';
    throw new ProtocolError(
      400,
      `ERR ${where}argument ${index + 1} is ${kind}; arguments must be strings, numbers or booleans`,
    );
  });
}
