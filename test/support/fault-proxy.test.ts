/**
 * The fault proxy's own controls, against an echo server: each fault does what the fault suite
 * relies on, and healing gives a clean pipe back.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FaultProxy, startFaultProxy } from './fault-proxy.ts';

/** A client that keeps what it received and whether the proxy closed on it. */
interface Peer {
  socket: Socket;
  received(): string;
  closed: Promise<void>;
  /** Resolves once at least `length` bytes arrived. */
  waitFor(length: number): Promise<string>;
}

function peer(port: number): Promise<Peer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let text = '';
    const waiters: { length: number; resolve: (text: string) => void }[] = [];
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      for (const waiter of waiters.filter((w) => text.length >= w.length)) waiter.resolve(text);
    });
    const closed = new Promise<void>((done) => socket.on('close', () => done()));
    socket.on('error', () => {});
    socket.once('connect', () =>
      resolve({
        socket,
        received: () => text,
        closed,
        waitFor: (length) =>
          text.length >= length
            ? Promise.resolve(text)
            : new Promise((done) => waiters.push({ length, resolve: done })),
      }),
    );
    socket.once('error', reject);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let echo: Server;
let proxy: FaultProxy;
let serverConnections = 0;

beforeEach(async () => {
  serverConnections = 0;
  echo = createServer((socket) => {
    serverConnections++;
    socket.on('error', () => {});
    socket.on('data', (chunk) => socket.write(chunk));
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', () => resolve()));
  const address = echo.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  proxy = await startFaultProxy({ target: { port: address.port } });
});

afterEach(async () => {
  await proxy.close();
  await new Promise<void>((resolve) => echo.close(() => resolve()));
});

describe('the fault proxy', () => {
  it('passes bytes both ways unchanged when no fault is on', async () => {
    const client = await peer(proxy.port);
    client.socket.write('hello');
    expect(await client.waitFor(5)).toBe('hello');
    expect(proxy.open).toBe(1);
    client.socket.destroy();
  });

  it('delays every chunk each way by the latency, keeping their order', async () => {
    proxy.setLatency(100);
    const client = await peer(proxy.port);
    const started = Date.now();
    client.socket.write('a');
    await sleep(20);
    client.socket.write('b');
    expect(await client.waitFor(2)).toBe('ab');
    // There and back: at least twice the one-way delay.
    expect(Date.now() - started).toBeGreaterThanOrEqual(195);
    client.socket.destroy();
  });

  it('holds every byte while stalled and delivers them in order on release', async () => {
    const client = await peer(proxy.port);
    proxy.stall();
    client.socket.write('one ');
    client.socket.write('two');
    await sleep(150);
    expect(client.received()).toBe('');
    proxy.release();
    expect(await client.waitFor(7)).toBe('one two');
    client.socket.destroy();
  });

  it('delivers what a departed client sent while stalled, then closes the server side', async () => {
    let serverGot = '';
    let serverEnded = false;
    echo.removeAllListeners('connection');
    echo.on('connection', (socket: Socket) => {
      socket.on('data', (chunk) => {
        serverGot += chunk.toString();
      });
      socket.on('end', () => {
        serverEnded = true;
      });
      socket.on('error', () => {});
    });
    const client = await peer(proxy.port);
    proxy.stall();
    // The client gives up: it sends, closes and goes away while the proxy still holds its bytes.
    client.socket.end('late request', () => client.socket.destroy());
    await client.closed;
    await sleep(50);
    expect(serverGot).toBe('');
    proxy.release();
    await sleep(100);
    expect([serverGot, serverEnded]).toEqual(['late request', true]);
  });

  it('cuts a connection after the given number of reply bytes', async () => {
    const client = await peer(proxy.port);
    proxy.drop(10);
    client.socket.write('x'.repeat(100));
    await client.closed;
    expect(client.received()).toBe('x'.repeat(10));
    // The request itself went through: the server got it and answered.
    expect(serverConnections).toBe(1);
    proxy.drop(undefined);
    const next = await peer(proxy.port);
    next.socket.write('y'.repeat(100));
    expect(await next.waitFor(100)).toBe('y'.repeat(100));
    next.socket.destroy();
  });

  it('closes new connections while refusing, and leaves open ones alone', async () => {
    const open = await peer(proxy.port);
    proxy.refuse(true);
    const refused = await peer(proxy.port);
    await refused.closed;
    expect(serverConnections).toBe(1);
    open.socket.write('still here');
    expect(await open.waitFor(10)).toBe('still here');
    proxy.disconnectAll();
    await open.closed;
    expect([proxy.open, proxy.accepted]).toEqual([0, 2]);
  });

  it('restarts on the same port: connections closed, refused while down, served again after', async () => {
    const client = await peer(proxy.port);
    const back = proxy.restart(200);
    await client.closed;
    await expect(peer(proxy.port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await back;
    const again = await peer(proxy.port);
    again.socket.write('back');
    expect(await again.waitFor(4)).toBe('back');
    again.socket.destroy();
  });

  it('heals every fault at once and delivers what was held', async () => {
    const client = await peer(proxy.port);
    proxy.setLatency(5_000);
    proxy.stall();
    proxy.refuse(true);
    proxy.drop(0);
    client.socket.write('held');
    await sleep(50);
    proxy.heal();
    expect(await client.waitFor(4)).toBe('held');
    const fresh = await peer(proxy.port);
    fresh.socket.write('clean');
    expect(await fresh.waitFor(5)).toBe('clean');
    client.socket.destroy();
    fresh.socket.destroy();
  });
});
