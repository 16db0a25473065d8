import { expect } from 'chai';
import { firstValueFrom, lastValueFrom, toArray } from 'rxjs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ApiError,
  getJson,
  listPage,
  type TransportError,
  watchLineChunks,
  watchLines,
} from '../../src/transport/index.js';
import { closed, startServer, tick } from './server.js';
import type { Handler, TestServer } from './server.js';

describe('transport over real HTTP', () => {
  let server: TestServer | undefined;
  let handler: Handler = (_req, res) => res.end();
  const start = async (h: Handler, options?: { tls?: boolean; token?: string }): Promise<TestServer> => {
    handler = h;
    server = await startServer((req, res) => handler(req, res), options);
    return server;
  };
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const json = (res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void => {
    res.writeHead(code, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

  describe('listPage', () => {
    it('sends the query, the Accept header and the kubeconfig token, and parses the list', async () => {
      const s = await start((_req, res) =>
        json(res, 200, {
          kind: 'PodList',
          metadata: { resourceVersion: '7', continue: 'c1' },
          items: [{ metadata: { name: 'a' } }],
        }),
      );
      const list = await listPage(
        s.kc,
        '/api/v1/pods',
        { limit: 500, continue: undefined, labelSelector: 'a=b' },
        { accept: 'application/json;as=X' },
      );
      expect(list.metadata).to.deep.equal({ resourceVersion: '7', continue: 'c1' });
      expect(list.items).to.have.length(1);
      const [req] = s.requests;
      expect(req!.url).to.equal('/api/v1/pods?limit=500&labelSelector=a%3Db');
      expect(req!.headers.accept).to.equal('application/json;as=X');
      expect(req!.headers.authorization).to.equal('Bearer secret-token');
    });

    it('maps an error Status to ApiError with code, reason, message and Retry-After', async () => {
      const s = await start((_req, res) =>
        json(
          res,
          429,
          { kind: 'Status', code: 429, reason: 'TooManyRequests', message: 'slow down' },
          { 'retry-after': '3' },
        ),
      );
      const err = await listPage(s.kc, '/api/v1/pods', {}).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(ApiError);
      const { code, reason, message, retryAfterSeconds } = err as ApiError;
      expect({ code, reason, message, retryAfterSeconds }).to.deep.equal({
        code: 429,
        reason: 'TooManyRequests',
        message: 'slow down',
        retryAfterSeconds: 3,
      });
    });

    it('maps a non-Status error body to ApiError with the HTTP reason phrase', async () => {
      const s = await start((_req, res) => {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end('upstream down');
      });
      const err = (await listPage(s.kc, '/api/v1/pods', {}).catch((e: unknown) => e)) as ApiError;
      expect([err.code, err.reason, err.message]).to.deep.equal([502, 'Bad Gateway', 'upstream down']);
    });

    it('rejects a body that is not a list with MalformedResponse', async () => {
      const s = await start((_req, res) => json(res, 200, { kind: 'Status' }));
      const err = (await listPage(s.kc, '/api/v1/pods', {}).catch((e: unknown) => e)) as TransportError;
      expect([err.name, err.reason]).to.deep.equal(['TransportError', 'MalformedResponse']);
    });

    it('aborts a pending request and closes its socket', async () => {
      let seen: IncomingMessage | undefined;
      const s = await start((req) => {
        seen = req;
      });
      const controller = new AbortController();
      const pending = getJson(s.kc, '/api/v1/pods', {}, { signal: controller.signal }).catch((e: unknown) => e);
      while (seen === undefined) await tick();
      controller.abort();
      await closed(seen);
      expect(await pending).to.be.instanceOf(Error);
      expect(s.requests).to.have.length(1);
    });

    it('reports a refused connection as a NetworkError', async () => {
      const s = await start((_req, res) => res.end());
      const kc = s.kc;
      await s.close();
      server = undefined;
      const err = (await getJson(kc, '/api/v1/pods', {}).catch((e: unknown) => e)) as TransportError;
      expect([err.name, err.reason]).to.deep.equal(['TransportError', 'NetworkError']);
    });
  });

  describe('watchLines', () => {
    it('splits lines across chunk boundaries, including a multi-byte character, and completes on a clean close', async () => {
      const payload = Buffer.from(
        '{"type":"ADDED","object":{"metadata":{"name":"ü🚀"}}}\n{"type":"BOOKMARK"}\n',
        'utf8',
      );
      const rocket = payload.indexOf(0xf0);
      const s = await start(async (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        for (const chunk of [payload.subarray(0, 10), payload.subarray(10, rocket + 1), payload.subarray(rocket + 1)]) {
          res.write(chunk);
          await tick();
        }
        res.end();
      });
      const lines = await lastValueFrom(watchLines(s.kc, '/api/v1/pods', { resourceVersion: '5' }).pipe(toArray()));
      expect(lines).to.deep.equal(['{"type":"ADDED","object":{"metadata":{"name":"ü🚀"}}}', '{"type":"BOOKMARK"}']);
      expect(s.requests[0]!.url).to.equal('/api/v1/pods?resourceVersion=5&watch=true');
    });

    it('groups, in watchLineChunks, the lines each chunk completed, and never emits an empty group', async () => {
      const s = await start(async (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        for (const chunk of ['{"a":1}\n{"b":2}\n{"c"', ':3}\n', '{"d":4}']) {
          res.write(chunk);
          await tick();
        }
        res.end();
      });
      const chunks = await lastValueFrom(watchLineChunks(s.kc, '/w', {}).pipe(toArray()));
      expect(chunks.flat()).to.deep.equal(['{"a":1}', '{"b":2}', '{"c":3}', '{"d":4}']);
      expect(chunks[0]!.slice(0, 2), 'the two lines of the first chunk together').to.deep.equal(['{"a":1}', '{"b":2}']);
      expect(chunks.every((lines) => lines.length > 0)).to.equal(true);
    });

    it('calls onActivity when bytes arrive, before the lines they complete', async () => {
      const s = await start(async (_req, res) => {
        res.writeHead(200);
        res.write('{"a"');
        await tick();
        res.end(':1}\n');
      });
      const log: string[] = [];
      await lastValueFrom(watchLines(s.kc, '/w', {}, { onActivity: () => log.push('bytes') }).pipe(toArray())).then(
        (lines) => log.push(...lines),
      );
      expect(log[0]).to.equal('bytes');
      expect(log.at(-1)).to.equal('{"a":1}');
    });

    it('errors with ConnectionClosed when the stream is cut before its end', async () => {
      const s = await start((req, res) => {
        res.writeHead(200);
        res.write('{"type":"ADDED"}\n');
        setImmediate(() => req.socket.destroy());
      });
      const got: string[] = [];
      const err = await new Promise<unknown>((resolve) =>
        watchLines(s.kc, '/w', {}).subscribe({
          next: (l) => got.push(l),
          error: resolve,
          complete: () => resolve('completed'),
        }),
      );
      expect(got).to.deep.equal(['{"type":"ADDED"}']);
      expect([(err as TransportError).name, (err as TransportError).reason]).to.deep.equal([
        'TransportError',
        'ConnectionClosed',
      ]);
    });

    it('errors with ApiError for an error status', async () => {
      const s = await start((_req, res) =>
        json(res, 410, { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' }),
      );
      const err = (await firstValueFrom(watchLines(s.kc, '/w', {})).catch((e: unknown) => e)) as ApiError;
      expect([err.code, err.reason, err.message]).to.deep.equal([410, 'Expired', 'too old resource version']);
    });

    it('aborts the request and closes the socket at once on unsubscribe', async () => {
      let seen: IncomingMessage | undefined;
      const s = await start((req, res) => {
        seen = req;
        res.writeHead(200);
        res.write('{"type":"BOOKMARK"}\n');
      });
      const lines: string[] = [];
      const sub = watchLines(s.kc, '/w', {}).subscribe({ next: (l) => lines.push(l) });
      while (lines.length === 0) await tick();
      sub.unsubscribe();
      await closed(seen!);
      expect(seen!.socket.destroyed).to.equal(true);
    });

    it('aborts before the response when unsubscribed early', async () => {
      let seen: IncomingMessage | undefined;
      const s = await start((req) => {
        seen = req;
      });
      const sub = watchLines(s.kc, '/w', {}).subscribe();
      while (seen === undefined) await tick();
      sub.unsubscribe();
      await closed(seen);
      expect(s.requests).to.have.length(1);
    });
  });

  describe('TLS', () => {
    it('talks HTTPS with the kubeconfig CA and bearer token', async () => {
      const s = await start(
        (req, res) => json(res, 200, { metadata: {}, items: [], auth: req.headers.authorization }),
        { tls: true, token: 'tls-token' },
      );
      const list = (await listPage(s.kc, '/api/v1/pods', {})) as unknown as { auth: string };
      expect(list.auth).to.equal('Bearer tls-token');
    });
  });
});
