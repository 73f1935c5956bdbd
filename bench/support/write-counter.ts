/**
 * Counts writes to a Redis socket (by its remote port): each is one request flight, one round
 * trip. Patches net.Socket.prototype.write until restore().
 */
import net from 'node:net';

export type WriteCounter = ReturnType<typeof createWriteCounter>;

export function createWriteCounter(port: number) {
  const original = net.Socket.prototype.write;
  let writes = 0;
  net.Socket.prototype.write = function (this: net.Socket, ...args: unknown[]) {
    if (this.remotePort === port) writes++;
    return (original as (...a: unknown[]) => boolean).apply(this, args);
  } as typeof original;
  return {
    take(): number {
      const n = writes;
      writes = 0;
      return n;
    },
    restore(): void {
      net.Socket.prototype.write = original;
    },
  };
}
