/**
 * The engine log on a local file (Node). Appends go straight to the file descriptor so a record
 * reaches the OS before the write's reply leaves; compaction writes a temporary file, fsyncs it
 * and renames it over the log, so a crash leaves either the old log or the new one.
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import type { LogStorage } from '../../lib/engine/persistence/log-storage.ts';

export function createFileStorage(path: string): LogStorage {
  mkdirSync(dirname(path), { recursive: true });
  let fd = openSync(path, 'a+');

  function writeAll(target: number, bytes: Uint8Array): void {
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(target, bytes, offset, bytes.length - offset);
  }

  return {
    read: () => (existsSync(path) ? new Uint8Array(readFileSync(path)) : undefined),
    append(bytes) {
      writeAll(fd, bytes);
    },
    truncate(length) {
      ftruncateSync(fd, length);
      fsyncSync(fd);
    },
    replace(bytes) {
      const temporary = `${path}.rewrite`;
      const out = openSync(temporary, 'w');
      try {
        writeAll(out, bytes);
        fsyncSync(out);
      } finally {
        closeSync(out);
      }
      renameSync(temporary, path);
      closeSync(fd);
      fd = openSync(path, 'a+');
    },
    close() {
      fsyncSync(fd);
      closeSync(fd);
    },
  };
}
