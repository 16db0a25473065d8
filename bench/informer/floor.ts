/**
 * The floor: the least work any informer must do. List pages (`limit=500` + `continue`) and one watch over plain
 * node:http, Buffer line splitting, `JSON.parse` per page or line, `Map.set` per object. No validation, no events,
 * no snapshots, no reconnects: a bound to compare against, not a client.
 */
import http from 'node:http';

export interface FloorOptions {
  /** Delete `metadata.managedFields` before caching (for the like-for-like heap comparison with rxkube). */
  readonly stripManagedFields: boolean;
  /** Called for every MODIFIED watch event after it is cached. */
  readonly onModified: () => void;
  /** The collection to list and watch; `/api/v1/pods` by default. */
  readonly path?: string;
}

export interface Floor {
  readonly cache: Map<string, unknown>;
  /** Resolves once every list page is cached (the watch is opened right after). */
  readonly synced: Promise<void>;
  stop(): void;
}

type Meta = { name: string; namespace?: string; resourceVersion?: string; managedFields?: unknown; continue?: string };
type Obj = { metadata: Meta };

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
const NEWLINE = 10;

function get(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(Buffer.concat(chunks).toString('utf8'))
            : reject(new Error(`GET ${url}: ${res.statusCode}`)),
        );
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** Starts the floor client against `base` (an `http://127.0.0.1:port` URL). */
export function floorClient(base: string, options: FloorOptions): Floor {
  const path = options.path ?? '/api/v1/pods';
  const cache = new Map<string, unknown>();
  const put = (object: Obj): void => {
    if (options.stripManagedFields) delete object.metadata.managedFields;
    cache.set(`${object.metadata.namespace}/${object.metadata.name}`, object);
  };
  let request: http.ClientRequest | undefined;

  const list = async (): Promise<string> => {
    let token: string | undefined;
    let resourceVersion = '';
    do {
      const page = JSON.parse(
        await get(`${base}${path}?limit=500${token ? `&continue=${encodeURIComponent(token)}` : ''}`),
      ) as { metadata: Meta; items: Obj[] };
      for (const item of page.items) put(item);
      token = page.metadata.continue;
      resourceVersion = page.metadata.resourceVersion ?? '';
    } while (token);
    return resourceVersion;
  };

  const onLine = (line: string): void => {
    const event = JSON.parse(line) as { type: string; object: Obj };
    if (event.type === 'BOOKMARK') return;
    if (event.type === 'DELETED') cache.delete(`${event.object.metadata.namespace}/${event.object.metadata.name}`);
    else put(event.object);
    if (event.type === 'MODIFIED') options.onModified();
  };

  const watch = (resourceVersion: string): void => {
    request = http.get(
      `${base}${path}?watch=true&allowWatchBookmarks=true&resourceVersion=${resourceVersion}`,
      (res) => {
        // Buffer line splitting: a line is decoded once, from the chunk it ends in (joined with the rest of the
        // previous chunks only when it spans several).
        let rest: Buffer[] = [];
        res.on('data', (chunk: Buffer) => {
          let start = 0;
          for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
            if (rest.length === 0) {
              onLine(chunk.toString('utf8', start, end));
            } else {
              rest.push(chunk.subarray(start, end));
              onLine(Buffer.concat(rest).toString('utf8'));
              rest = [];
            }
            start = end + 1;
          }
          if (start < chunk.length) rest.push(chunk.subarray(start));
        });
        res.on('error', () => undefined);
      },
    );
    request.on('error', () => undefined);
  };

  const synced = list().then((rv) => watch(rv));
  return { cache, synced, stop: () => request?.destroy() };
}
