/**
 * The dashboard without a browser: `npm run example -- cluster-dashboard` on the embedded cluster and its command
 * line; and its server on real sockets: what it answers, and what a browser that stops reading costs it.
 */
import { expect } from 'chai';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { BehaviorSubject, filter, firstValueFrom, type Observable } from 'rxjs';
import { monotonicScheduler } from '../../src/extend.js';
import { spawnExample } from '../shared/spec-support.js';
import { waitFor, waitForAsync } from '../shared/wait.js';
import { toFrame, type Frame } from './event-stream.js';
import type { DashboardState } from './state.js';
import { startDashboardServer, type DashboardServer } from './server.js';

/** A raw HTTP/1.1 request on a socket of its own (so the Host header and the reading pace are the test's). */
async function request(
  url: string,
  path: string,
  options: { readonly method?: string; readonly host?: string } = {},
): Promise<{ readonly head: string; readonly socket: Socket; readonly body: () => string }> {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  await once(socket, 'connect');
  let received = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => {
    received += chunk;
  });
  socket.write(
    `${options.method ?? 'GET'} ${path} HTTP/1.1\r\nHost: ${options.host ?? `127.0.0.1:${port}`}\r\nConnection: close\r\n\r\n`,
  );
  await waitFor(() => received.includes('\r\n\r\n'), `the head of ${path}`);
  const head = received.slice(0, received.indexOf('\r\n\r\n'));
  return { head, socket, body: () => received.slice(received.indexOf('\r\n\r\n') + 4) };
}

describe('npm run example -- cluster-dashboard', function () {
  this.timeout(90_000);

  it('plays its workload on the embedded cluster, serves the page, its picture and its event stream on 127.0.0.1, and exits 0 on SIGINT', async () => {
    const { child, stdout, output, exited } = spawnExample(
      'examples/run.ts',
      'cluster-dashboard',
      '--dashboard-port',
      '0',
      '--metrics-bind-address',
      '127.0.0.1:0',
      '--health-probe-bind-address',
      '127.0.0.1:0',
    );
    try {
      await waitFor(
        () => /dashboard on http:\/\/127\.0\.0\.1:\d+\//.test(stdout()),
        () => `the dashboard's URL; output so far:\n${output()}`,
        60_000,
      );
      const url = /dashboard on (http:\S+)/.exec(stdout())![1]!;
      let state: DashboardState | undefined;
      await waitForAsync(
        async () => {
          state = (await (await fetch(`${url}state`)).json()) as DashboardState;
          return (
            state.podSets.some((set) => set.key === 'default/web' && set.ready === 3) &&
            state.podSets.some((set) => set.key === 'default/api' && set.ready === 2)
          );
        },
        () => `web with 3 and api with 2 ready Pods; the last picture: ${JSON.stringify(state?.podSets)}`,
        60_000,
      );
      expect(state!.kinds.map((kind) => kind.kind)).to.deep.equal(['PodSet', 'Pod']);
      expect(state!.queues.map((queue) => queue.controller)).to.deep.equal(['podsets']);
      expect(state!.runs.length).to.be.greaterThan(0);
      expect(state!.leader).to.deep.include({ enabled: true, leading: true, lease: 'default/cluster-dashboard' });

      const page = await fetch(url);
      expect(page.headers.get('content-type')).to.equal('text/html; charset=utf-8');
      expect(page.headers.get('content-security-policy')).to.contain("default-src 'self'");
      expect(await page.text()).to.contain('<script type="module" src="/dashboard.js"></script>');
      const stream = await request(url, '/events');
      await waitFor(() => stream.body().includes('event: state\ndata: {'), 'a picture on the event stream');
      expect(stream.head)
        .to.match(/^HTTP\/1\.1 200 OK/)
        .and.match(/content-type: text\/event-stream/i);
      expect(stream.body()).to.match(/^[0-9a-f]+\r\nretry: 1000\n\n/);
      stream.socket.destroy();

      child.kill('SIGINT');
      const [code] = await exited;
      expect(code).to.equal(0);
      expect(stdout()).to.contain('cluster-dashboard: stopping (signal SIGINT; draining in-flight reconciles)');
      expect(stdout()).to.contain('Shutting down PodSet controller');
    } finally {
      child.kill('SIGKILL');
    }
  });

  for (const [args, said] of [
    [['--dashboard-port', '70000'], 'cluster-dashboard: dashboard: port must be an integer in [0, 65535], got 70000'],
    [['--update-interval', 'soon'], 'cluster-dashboard: --update-interval must be a number, got "soon"'],
    [['--max-clients', '0'], 'cluster-dashboard: dashboard: max clients must be an integer >= 1, got 0'],
    [['--workers', '0'], 'cluster-dashboard: replicaSet: workers must be an integer >= 1, got 0'],
  ] as const) {
    it(`exits 2 on ${args.join(' ')}, saying why, before starting anything`, async () => {
      const { output, exited } = spawnExample('examples/run.ts', 'cluster-dashboard', ...args);
      const [code] = await exited;
      expect(code).to.equal(2);
      expect(output().trim()).to.equal(said);
    });
  }
});

describe("the dashboard's server", () => {
  let server: DashboardServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  /** A server over `pictures`, replaying the latest as the dashboard's frames do. */
  const serve = async (pictures: BehaviorSubject<Frame | undefined>, maxClients = 4): Promise<DashboardServer> => {
    const frames$ = pictures.pipe(filter((frame): frame is Frame => frame !== undefined)) as Observable<Frame>;
    server = await startDashboardServer({ port: 0, maxClients, frames$, scheduler: monotonicScheduler });
    return server;
  };

  it('answers loopback Host names only, refuses writes, and refuses a browser beyond the most it serves', async () => {
    const { url } = await serve(new BehaviorSubject<Frame | undefined>(toFrame({ n: 1 })), 1);
    expect(url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect((await request(url, '/', { host: 'evil.example.com' })).head).to.match(/^HTTP\/1\.1 403/);
    for (const host of ['localhost:9000', '127.0.0.1', '[::1]:8090'])
      expect((await request(url, '/dashboard.js', { host })).head, host).to.match(/^HTTP\/1\.1 200/);
    expect((await request(url, '/events', { method: 'POST' })).head)
      .to.match(/^HTTP\/1\.1 405/)
      .and.match(/allow: GET, HEAD/i);
    expect((await request(url, '/nope')).head).to.match(/^HTTP\/1\.1 404/);
    expect(await (await fetch(`${url}state`)).json()).to.deep.equal({ n: 1 });
    const first = await request(url, '/events');
    expect(first.head).to.match(/^HTTP\/1\.1 200/);
    await waitFor(() => server!.stats().clients === 1, 'one browser connected');
    const second = await request(url, '/events');
    expect(second.head)
      .to.match(/^HTTP\/1\.1 503/)
      .and.match(/retry-after: 5/i);
    expect(server!.stats().refused).to.equal(1);
    first.socket.destroy();
    await firstValueFrom(server!.clients$.pipe(filter((count) => count === 0)));
  });

  it("holds at most its socket's high-water mark plus one frame for a browser that stops reading, skips the frames it cannot take, and sends the latest once it reads again", async () => {
    const pictures = new BehaviorSubject<Frame | undefined>(undefined);
    const picture = (n: number): Frame => toFrame({ n, padding: 'x'.repeat(64 * 1024) });
    const { url } = await serve(pictures);
    pictures.next(picture(0));
    const slow = await request(url, '/events');
    await waitFor(() => slow.body().includes('"n":0'), 'the first picture');
    slow.socket.pause();
    // 400 pictures of 64 KiB (25 MiB) while the browser reads nothing; the event loop turns between them.
    for (let n = 1; n <= 400; n++) {
      pictures.next(picture(n));
      await new Promise((resolve) => setImmediate(resolve));
    }
    const [stats] = server!.stats().connections;
    expect(stats!.offered).to.equal(401);
    // The kernel's socket buffers (several MiB on loopback) take some before the process's buffer fills; the rest
    // is skipped, not queued.
    expect(stats!.written).to.be.lessThan(stats!.offered / 2);
    expect(stats!.highWaterMark).to.be.greaterThan(0);
    expect(stats!.peakBufferedBytes).to.be.at.most(stats!.highWaterMark + picture(400).event.length + 64);
    slow.socket.resume();
    await waitFor(() => slow.body().includes('"n":400,'), 'the latest picture once the browser reads again', 10_000);
    slow.socket.destroy();
  });
});
