/**
 * A webhook as a trigger source: a tiny HTTP server on 127.0.0.1 turns POSTed keys into reconcile triggers, through
 * the same keyed queue, lookup and gate as the informer's own events.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Subject, merge, type Subscription } from 'rxjs';
import { reconcile } from '../../src/controller/index.js';
import { toKeys, toTriggers } from '../../src/controller/triggers/index.js';
import { fakeInformer } from '../../src/testing/index.js';

interface Post {
  readonly key?: unknown;
  readonly from: string;
}

/** A webhook endpoint: POST /reconcile with `{ "key": "namespace/name" }`; 202 once queued, 400 for a body that is not JSON. */
function webhook(posts: Subject<Post>): Server {
  return createServer((request, response) => {
    if (request.method !== 'POST' || request.url !== '/reconcile') {
      response.writeHead(404).end();
      return;
    }
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      let message: { key?: unknown };
      try {
        message = JSON.parse(body) as { key?: unknown };
      } catch {
        response
          .writeHead(400, { 'content-type': 'text/plain' })
          .end('the body must be JSON: {"key": "namespace/name"}');
        return;
      }
      posts.next({ key: message?.key, from: request.socket.remoteAddress ?? 'unknown' });
      response.writeHead(202, { 'content-type': 'text/plain' }).end('queued');
    });
  });
}

const widget = (name: string): KubernetesObject => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name, namespace: 'default', resourceVersion: '1' },
});

describe('a webhook as a trigger source', () => {
  let server: Server;
  let url: string;
  let running: Subscription;
  const runs: { key: string; reasons: readonly string[]; found: boolean }[] = [];
  const refused: Error[] = [];
  let waiting: (() => void)[] = [];
  const nextRun = () => new Promise<void>((resolve) => waiting.push(resolve));
  const post = (body: string) =>
    fetch(`${url}/reconcile`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });

  before(async () => {
    const posts = new Subject<Post>();
    const widgets = fakeInformer([widget('a'), widget('b')]);
    running = merge(
      widgets.events$.pipe(toKeys()),
      posts.pipe(
        toTriggers((message) => (typeof message.key === 'string' ? message.key : undefined), {
          reason: (message) => `webhook POST /reconcile from ${message.from}`,
          source: 'webhook',
          onError: (error) => refused.push(error),
        }),
      ),
    )
      .pipe(
        reconcile(
          ({ key, object, reasons }) => {
            runs.push({ key, reasons, found: object !== undefined });
            const resolve = waiting;
            waiting = [];
            for (const done of resolve) done();
          },
          { lookup: widgets, gate: widgets.synced$ },
        ),
      )
      .subscribe();
    server = webhook(posts);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    running.unsubscribe();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('reconciles a POSTed key, with the webhook as its reason, reading the object from the informer', async () => {
    while (runs.length < 2) await nextRun();
    runs.length = 0;
    const ran = nextRun();
    const response = await post('{"key":"default/b"}');
    expect([response.status, await response.text()]).to.deep.equal([202, 'queued']);
    await ran;
    expect(runs).to.deep.equal([
      { key: 'default/b', reasons: ['webhook POST /reconcile from 127.0.0.1'], found: true },
    ]);
  });

  it('reconciles a key the cache does not hold as gone, which is what the reconcile must decide about', async () => {
    runs.length = 0;
    const ran = nextRun();
    await post('{"key":"default/unknown"}');
    await ran;
    expect(runs).to.deep.equal([
      { key: 'default/unknown', reasons: ['webhook POST /reconcile from 127.0.0.1'], found: false },
    ]);
  });

  it('answers 400 to a body that is not JSON, and reports a key no object can have instead of queueing it', async () => {
    runs.length = 0;
    const response = await post('key=default/a');
    expect(response.status).to.equal(400);
    await post('{"key":"default/a/b"}');
    expect(refused.map((error) => error.message)).to.deep.equal([
      'key mapper returned "default/a/b", which has more than one "/": an object key is namespace/name or name (webhook <no key>)',
    ]);
    const ran = nextRun();
    await post('{"key":"default/a"}');
    await ran;
    expect(runs.map((run) => run.key)).to.deep.equal(['default/a']);
  });
});
