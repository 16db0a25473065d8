/**
 * The API server of the continuous-stream workload: a replay server over plain node:http that serves the pods as
 * list pages (`limit` + `continue`) and, on the parent's order, streams every MODIFIED event into the open watch in
 * one continuous response, as fast as the client reads it.
 *
 * Why not the in-memory API server: there the writer commits each modification (validation, defaulting, history,
 * fan-out) on the same two cores as the client, so the stream is as fast as the writer, not the client. Here every
 * byte is serialized before the clock starts and written with socket backpressure only, so the server costs a
 * memcpy per block and each client (floor, rxkube, client-node) receives exactly the same bytes.
 *
 * Usage (by `continuous.ts`): `stream-server.ts <pods> <events>`. Messages out: `{ type: 'ready', url, podBytes }`,
 * `{ type: 'watchers', count }`, `{ type: 'stream-sent' }`. Messages in: `{ type: 'watchers' }`, `{ type: 'stream' }`
 * (writes the events into the one open watch), `{ type: 'stop' }`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { makePod, modifyPod, type PodJson } from './pods.js';

const pods = Number(process.argv[2] ?? '50000');
const events = Number(process.argv[3] ?? String(pods));
const PAGE = 500;
/** Bytes per socket write; the kernel and the client's reads cut them further. */
const BLOCK_BYTES = 1 << 20;

const listVersion = 1_000_000;
const podList: PodJson[] = [];
for (let i = 0; i < pods; i++) {
  const pod = makePod(i);
  pod.metadata['resourceVersion'] = String(listVersion - pods + i);
  podList.push(pod);
}
const podBytes = Math.round(
  podList.slice(0, 100).reduce((sum, pod) => sum + JSON.stringify(pod).length, 0) / Math.min(100, pods),
);

/** List pages, serialized once: page n starts at item n·500; its continue token is the next page's number. */
const pages: Buffer[] = [];
for (let start = 0; start < pods; start += PAGE) {
  const items = podList
    .slice(start, start + PAGE)
    .map((pod) => JSON.stringify(pod))
    .join(',');
  const next = start + PAGE < pods ? `,"continue":"${start / PAGE + 1}"` : '';
  pages.push(
    Buffer.from(
      `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"${listVersion}"${next}},"items":[${items}]}`,
    ),
  );
}

/** The watch stream, serialized once: `events` MODIFIED lines, each modifying a different pod, in blocks. */
const blocks: Buffer[] = [];
{
  let block: string[] = [];
  let blockBytes = 0;
  for (let k = 0; k < events; k++) {
    const index = k % pods;
    const modified = modifyPod(podList[index]!, k + 1);
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
podList.length = 0;

const watches = new Set<http.ServerResponse>();

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (url.pathname !== '/api/v1/pods') {
    res
      .writeHead(404, { 'content-type': 'application/json' })
      .end('{"kind":"Status","apiVersion":"v1","status":"Failure","code":404,"reason":"NotFound"}');
    return;
  }
  if (url.searchParams.get('watch') === 'true') {
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    res.flushHeaders();
    watches.add(res);
    res.on('close', () => watches.delete(res));
    return;
  }
  const page = Number(url.searchParams.get('continue') ?? '0');
  const body = pages[page];
  if (body === undefined) {
    res
      .writeHead(410, { 'content-type': 'application/json' })
      .end('{"kind":"Status","apiVersion":"v1","status":"Failure","code":410,"reason":"Expired"}');
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body);
});

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

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.send!({ type: 'ready', url: `http://127.0.0.1:${port}`, podBytes });
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
