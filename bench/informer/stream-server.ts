/**
 * The API server of the informer benchmark's replay workloads (continuous stream and scale): plain node:http that
 * serves pre-built list pages and then streams pre-built MODIFIED events into the open watch, as fast as the client
 * reads them. One server for realistic pods (`pods.ts`) and small ConfigMaps (`configmaps.ts`).
 *
 * Why not the in-memory API server: there every page is serialized on request and every modification is committed
 * (validation, defaulting, history, fan-out) on the same two cores as the client, so the clients sit idle waiting for
 * the server. Here every byte is serialized before the clock starts and written with socket backpressure only, so
 * the server costs a memcpy per block and each client (floor, rxkube, client-node) receives exactly the same bytes.
 *
 * What it serves is what kube-apiserver serves for a built-in kind:
 * - list items without `kind` and `apiVersion` (watch events carry them);
 * - list metadata with `resourceVersion`, and on every page but the last an opaque `continue` token (base64 JSON, as
 *   kube-apiserver's) and `remainingItemCount`; `limit` is honoured (pages of 500 are pre-built; another limit is
 *   built on its first request), and a list without `limit` is the whole collection in one response;
 * - `Content-Type: application/json` and no `Keep-Alive: timeout=…` hint (Go's server sends none, and a client may
 *   open a connection per page when it sees one): `server.keepAliveTimeout = 0` suppresses the header node:http
 *   sends by default, and the server checks that with a raw socket read before it reports ready.
 *
 * Usage (by `continuous.ts`): `stream-server.ts <pods|configmaps> <count> <events>`. Messages out:
 * `{ type: 'ready', url, objectBytes, buildMs, headers }`, `{ type: 'watchers', count }`, `{ type: 'stream-sent' }`.
 * Messages in: `{ type: 'watchers' }`, `{ type: 'stream' }` (writes the events into the one open watch),
 * `{ type: 'stop' }`.
 */
import http from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { modifyConfigMap, smallConfigMap } from './configmaps.js';
import { makePod, modifyPod } from './pods.js';

type Json = {
  apiVersion: string;
  kind: string;
  metadata: Record<string, unknown> & { name: string; namespace: string };
};
interface Served {
  readonly path: string;
  readonly listKind: string;
  /** The `i`-th object. */
  readonly make: (i: number) => Json;
  /** The `generation`-th modification of the `i`-th object. */
  readonly modified: (i: number, generation: number) => Json;
}
const served: Record<string, Served> = {
  pods: { path: '/api/v1/pods', listKind: 'PodList', make: makePod, modified: (i, g) => modifyPod(makePod(i), g) },
  configmaps: {
    path: '/api/v1/configmaps',
    listKind: 'ConfigMapList',
    make: smallConfigMap,
    modified: (i, g) => modifyConfigMap(smallConfigMap(i), g),
  },
};

const resource = served[process.argv[2] ?? 'pods'];
if (resource === undefined) throw new Error(`stream-server: unknown resource ${process.argv[2]}`);
const count = Number(process.argv[3] ?? '50000');
const events = Number(process.argv[4] ?? String(count));
const DEFAULT_LIMIT = 500;
/** Bytes per socket write; the kernel and the client's reads cut them further. */
const BLOCK_BYTES = 1 << 20;
const listVersion = 10_000_000;

const buildStarted = performance.now();
/** Each list item's JSON (no kind, no apiVersion) and store key, in list order. */
const items: string[] = new Array(count);
const keys: string[] = new Array(count);
for (let i = 0; i < count; i++) {
  const { apiVersion: _apiVersion, kind: _kind, ...item } = resource.make(i);
  item.metadata['resourceVersion'] = String(listVersion - count + i);
  items[i] = JSON.stringify(item);
  keys[i] = `${item.metadata.namespace}/${item.metadata.name}`;
}
const objectBytes = Math.round(items.slice(0, 100).reduce((sum, item) => sum + item.length, 0) / Math.min(100, count));

/** Continue token → offset of the page it continues with. */
const offsets = new Map<string, number>();
const tokenAt = (offset: number): string => {
  const token = Buffer.from(
    JSON.stringify({ v: 'meta.k8s.io/v1', rv: listVersion, start: `${keys[offset - 1]}\u0000` }),
  ).toString('base64');
  offsets.set(token, offset);
  return token;
};
/** Pages by `offset:limit`, serialized once. */
const pages = new Map<string, Buffer>();
function page(offset: number, limit: number): Buffer {
  const id = `${offset}:${limit}`;
  let body = pages.get(id);
  if (body === undefined) {
    const end = Math.min(count, offset + limit);
    const more = end < count ? `,"continue":"${tokenAt(end)}","remainingItemCount":${count - end}` : '';
    body = Buffer.from(
      `{"kind":"${resource!.listKind}","apiVersion":"v1","metadata":{"resourceVersion":"${listVersion}"${more}},"items":[${items.slice(offset, end).join(',')}]}`,
    );
    pages.set(id, body);
  }
  return body;
}
for (let offset = 0; offset < count; offset += DEFAULT_LIMIT) page(offset, DEFAULT_LIMIT);

/** The watch stream, serialized once: `events` MODIFIED lines, each modifying a different object, in blocks. */
const blocks: Buffer[] = [];
{
  let block: string[] = [];
  let blockBytes = 0;
  for (let k = 0; k < events; k++) {
    const modified = resource.modified(k % count, k + 1);
    modified.metadata['resourceVersion'] = String(listVersion + k + 1);
    const line = `{"type":"MODIFIED","object":${JSON.stringify(modified)}}\n`;
    block.push(line);
    blockBytes += line.length;
    if (blockBytes >= BLOCK_BYTES || k === events - 1) {
      blocks.push(Buffer.from(block.join('')));
      block = [];
      blockBytes = 0;
    }
  }
}
const buildMs = performance.now() - buildStarted;

const JSON_HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-cache, private' };
const status = (code: number, reason: string, message: string): string =>
  JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });

const watches = new Set<http.ServerResponse>();

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (url.pathname !== resource.path) {
    res.writeHead(404, JSON_HEADERS).end(status(404, 'NotFound', `${url.pathname} is not served here`));
    return;
  }
  const watch = url.searchParams.get('watch');
  if (watch === 'true' || watch === '1') {
    res.writeHead(200, { ...JSON_HEADERS, 'transfer-encoding': 'chunked' });
    res.flushHeaders();
    watches.add(res);
    res.on('close', () => watches.delete(res));
    return;
  }
  const token = url.searchParams.get('continue');
  const offset = token === null || token === '' ? 0 : offsets.get(token);
  if (offset === undefined) {
    res.writeHead(410, JSON_HEADERS).end(status(410, 'Expired', 'the provided continue parameter is too old'));
    return;
  }
  const limit = Number(url.searchParams.get('limit') ?? '0');
  const body = page(offset, Number.isInteger(limit) && limit > 0 ? limit : count);
  res.writeHead(200, { ...JSON_HEADERS, 'content-length': body.length }).end(body);
});
// No `Keep-Alive: timeout=…` header (node:http sends `timeout=5` by default; Go's server sends no such hint), and
// no idle timeout either: kube-apiserver keeps idle connections open.
server.keepAliveTimeout = 0;

/** Writes every block into `res`, waiting for `drain` whenever the socket buffer is full. */
function stream(res: http.ServerResponse, done: () => void): void {
  let next = 0;
  const pump = (): void => {
    while (next < blocks.length) {
      if (res.destroyed) return;
      if (!res.write(blocks[next++]!)) {
        res.once('drain', pump);
        return;
      }
    }
    done();
  };
  pump();
}

/** The response headers of a one-item list page, read off a raw socket (what any client sees first). */
function rawHeaders(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = connect(port, '127.0.0.1', () =>
      socket.write(`GET ${resource!.path}?limit=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n`),
    );
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
      const end = text.indexOf('\r\n\r\n');
      if (end !== -1) {
        socket.destroy();
        resolve(text.slice(0, end));
      }
    });
    socket.on('error', reject);
  });
}

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  void rawHeaders(port).then((headers) => {
    if (/^keep-alive:/im.test(headers)) throw new Error(`stream-server: sends a Keep-Alive hint:\n${headers}`);
    if (!/^content-type: application\/json$/im.test(headers))
      throw new Error(`stream-server: content type:\n${headers}`);
    process.send!({ type: 'ready', url: `http://127.0.0.1:${port}`, objectBytes, buildMs, headers });
  });
});

process.on('message', (message: { type: string }) => {
  if (message.type === 'watchers') {
    process.send!({ type: 'watchers', count: watches.size });
  } else if (message.type === 'stream') {
    const [res] = watches;
    if (res === undefined) throw new Error('stream-server: no open watch to stream into');
    stream(res, () => process.send!({ type: 'stream-sent' }));
  } else if (message.type === 'stop') {
    for (const res of watches) res.destroy();
    server.close(() => process.exit(0));
    server.closeAllConnections();
  }
});
