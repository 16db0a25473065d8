import { expect } from 'chai';
import type { IncomingMessage } from 'node:http';
import { filter, firstValueFrom, take, toArray } from 'rxjs';
import { listWatch } from '../../src/watch/index.js';
import { closed, startServer } from '../transport/server.js';
import type { TestServer } from '../transport/server.js';

const pod = (name: string, rv: string): unknown => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', resourceVersion: rv },
});

describe('listWatch over real HTTP', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('lists, watches, resumes after a clean close from the last resourceVersion, and closes the socket on unsubscribe', async () => {
    const watches: IncomingMessage[] = [];
    server = await startServer((req, res) => {
      const url = new URL(req.url!, 'http://x');
      res.writeHead(200, { 'content-type': 'application/json' });
      if (url.searchParams.get('watch') !== 'true') {
        res.end(JSON.stringify({ kind: 'PodList', metadata: { resourceVersion: '10' }, items: [pod('a', '5')] }));
        return;
      }
      watches.push(req);
      if (watches.length === 1) {
        res.write(`${JSON.stringify({ type: 'MODIFIED', object: pod('a', '11') })}\n{"type":"BOOKM`);
        res.end(`ARK","object":{"metadata":{"resourceVersion":"12"}}}\n`);
      } else {
        res.write(`${JSON.stringify({ type: 'ADDED', object: pod('b', '13') })}\n`);
      }
    });
    const deltas = await firstValueFrom(
      listWatch(server.kc, { apiVersion: 'v1', kind: 'Pod' }).pipe(
        filter((e) => e.type !== 'status'),
        take(6),
        toArray(),
      ),
    );
    expect(deltas.map((e) => e.type)).to.deep.equal([
      'relistStarted',
      'listed',
      'relistDone',
      'modified',
      'bookmark',
      'added',
    ]);
    const [first, second] = watches.map((req) => new URL(req.url!, 'http://x').searchParams);
    expect([first!.get('resourceVersion'), second!.get('resourceVersion')]).to.deep.equal(['10', '12']);
    expect(first!.get('allowWatchBookmarks')).to.equal('true');
    await closed(watches[1]!);
    expect(watches[1]!.socket.destroyed).to.equal(true);
    expect(server.requests).to.have.length(3);
  });
});
