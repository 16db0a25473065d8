import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { startTcpProxy, type TcpProxy } from '../../../src/testing/index.js';

/** An echo server on 127.0.0.1 that upper-cases what it receives. */
async function startEcho(): Promise<{ server: Server; port: number; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => socket.write(chunk.toString().toUpperCase()));
    socket.on('end', () => socket.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, sockets };
}

/** A client connection to the proxy that collects what it receives and how it ended. */
async function dial(port: number) {
  const socket = connect({ host: '127.0.0.1', port });
  const state = { received: '', ended: false, error: undefined as NodeJS.ErrnoException | undefined, closed: false };
  socket.on('data', (chunk: Buffer) => {
    state.received += chunk.toString();
  });
  socket.on('end', () => {
    state.ended = true;
  });
  socket.on('error', (err) => {
    state.error = err;
  });
  socket.on('close', () => {
    state.closed = true;
  });
  // A connection reset at once may fail before it reports its connect.
  await new Promise<void>((resolve) => {
    socket.once('connect', () => resolve());
    socket.once('close', () => resolve());
  });
  return { socket, state };
}

/** Polls `condition` every few ms until it holds (the spec's own timeout bounds it). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** Lets the event loop deliver what was written (not a timing assertion: the spec checks nothing arrived). */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 100));

describe('testing: startTcpProxy passes, stalls and resets connections on 127.0.0.1', () => {
  let echo: Awaited<ReturnType<typeof startEcho>>;
  let proxy: TcpProxy;
  const opened: Socket[] = [];
  beforeEach(async () => {
    echo = await startEcho();
    proxy = await startTcpProxy({ targetPort: echo.port });
  });
  afterEach(async () => {
    for (const socket of opened.splice(0)) socket.destroy();
    await proxy.close();
    await new Promise<void>((resolve) => {
      echo.server.close(() => resolve());
      for (const socket of echo.sockets) socket.destroy();
    });
  });

  it('forwards bytes both ways and passes a FIN on as a FIN', async () => {
    const { socket, state } = await dial(proxy.port);
    opened.push(socket);
    socket.write('hello');
    await until(() => state.received === 'HELLO');
    socket.end();
    await until(() => state.ended);
    expect(state.error).to.equal(undefined);
    expect(proxy.acceptedConnections).to.equal(1);
  });

  it("stall('open') holds the open connection's bytes without a FIN or a reset, and lets a new one pass", async () => {
    const first = await dial(proxy.port);
    opened.push(first.socket);
    first.socket.write('a');
    await until(() => first.state.received === 'A');
    proxy.stall('open');
    first.socket.write('b');
    const second = await dial(proxy.port);
    opened.push(second.socket);
    second.socket.write('c');
    await until(() => second.state.received === 'C');
    await settle();
    expect(first.state).to.deep.include({ received: 'A', ended: false, closed: false, error: undefined });
    expect(proxy.mode).to.equal('pass');
  });

  it('pass() resumes a stalled connection with every byte it held, as a healed partition does', async () => {
    const { socket, state } = await dial(proxy.port);
    opened.push(socket);
    proxy.stall();
    socket.write('held');
    await settle();
    expect(state.received).to.equal('');
    proxy.pass();
    await until(() => state.received === 'HELD');
  });

  it('keeps a stalled connection open when the upstream closes, and closes it once pass() ends the stall', async () => {
    const { socket, state } = await dial(proxy.port);
    opened.push(socket);
    socket.write('x');
    await until(() => state.received === 'X');
    proxy.stall('open');
    for (const upstream of echo.sockets) upstream.destroy();
    await settle();
    expect(state).to.deep.include({ ended: false, closed: false });
    proxy.pass();
    await until(() => state.closed);
  });

  it("stall('all') accepts new connections and passes nothing on them until pass()", async () => {
    proxy.stall('all');
    const { socket, state } = await dial(proxy.port);
    opened.push(socket);
    socket.write('late');
    await settle();
    expect(state.received).to.equal('');
    expect(proxy.mode).to.equal('stall');
    proxy.pass();
    await until(() => state.received === 'LATE');
  });

  it("reset('open') resets the open connections with ECONNRESET and lets new ones pass", async () => {
    const first = await dial(proxy.port);
    opened.push(first.socket);
    proxy.reset('open');
    await until(() => first.state.closed);
    expect(first.state.error?.code).to.equal('ECONNRESET');
    const second = await dial(proxy.port);
    opened.push(second.socket);
    second.socket.write('ok');
    await until(() => second.state.received === 'OK');
  });

  it("reset('all') resets new connections at once until pass()", async () => {
    proxy.reset('all');
    const first = await dial(proxy.port);
    opened.push(first.socket);
    await until(() => first.state.closed);
    expect(first.state.error?.code).to.equal('ECONNRESET');
    proxy.pass();
    const second = await dial(proxy.port);
    opened.push(second.socket);
    second.socket.write('back');
    await until(() => second.state.received === 'BACK');
  });

  it('close() resets what is open, frees the port, and may be called twice', async () => {
    const { socket, state } = await dial(proxy.port);
    opened.push(socket);
    await Promise.all([proxy.close(), proxy.close()]);
    await until(() => state.closed);
    const refused = connect({ host: '127.0.0.1', port: proxy.port });
    const code = await new Promise<string | undefined>((resolve) => {
      refused.on('error', (err: NodeJS.ErrnoException) => resolve(err.code));
      refused.on('connect', () => resolve(undefined));
    });
    refused.destroy();
    expect(code).to.equal('ECONNREFUSED');
  });

  it('refuses a target port that is not a port number', async () => {
    let error: unknown;
    await startTcpProxy({ targetPort: 0 }).catch((err: unknown) => {
      error = err;
    });
    expect(error).to.be.instanceOf(RangeError);
  });
});

describe('testing: startTcpProxy leaves nothing behind that keeps a process from exiting', () => {
  /** How long the fixture may take (tsx compiling it on a loaded machine); a process that spins never ends. */
  const EXIT_BOUND_MS = 60_000;

  it('lets the process exit after close() meets a connection whose FIN is under way (Node spun at 100 % at exit)', async function () {
    this.timeout(EXIT_BOUND_MS + 10_000);
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'spec/testing/proxy/fixtures/reset-while-ending.fixture.ts'],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), EXIT_BOUND_MS);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.once('exit', (exitCode, exitSignal) => resolve([exitCode, exitSignal])),
    );
    clearTimeout(killer);
    expect(output, 'the fixture closed everything').to.include('closed');
    expect({ code, signal }, 'the process exited by itself').to.deep.equal({ code: 0, signal: null });
  });
});
