/**
 * The floor: the least work any informer must do. List pages (`limit=500` + `continue`) and one watch over plain
 * node:http, `JSON.parse` per page or line, `Map.set` per object. No validation, no events, no snapshots, no
 * reconnects: a bound to compare against, not a client.
 */
import http from 'node:http';

export interface FloorOptions {
  /** Delete `metadata.managedFields` before caching (for the like-for-like heap comparison with rxkube). */
  readonly stripManagedFields: boolean;
  /** Called for every MODIFIED watch event after it is cached. */
  readonly onModified: () => void;
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

function get(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http.get(url, { agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks).toString('utf8')) : reject(new Error(`GET ${url}: ${res.statusCode}`))));
      res.on('error', reject);
    }).on('error', reject);
  });
}

/** Starts the floor client against `base` (an `http://127.0.0.1:port` URL). */
export function floorClient(base: string, options: FloorOptions): Floor {
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
      const page = JSON.parse(await get(`${base}/api/v1/pods?limit=500${token ? `&continue=${encodeURIComponent(token)}` : ''}`)) as { metadata: Meta; items: Obj[] };
      for (const item of page.items) put(item);
      token = page.metadata.continue;
      resourceVersion = page.metadata.resourceVersion ?? '';
    } while (token);
    return resourceVersion;
  };

  const watch = (resourceVersion: string): void => {
    request = http.get(`${base}/api/v1/pods?watch=true&allowWatchBookmarks=true&resourceVersion=${resourceVersion}`, (res) => {
      let rest = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const text = rest + chunk;
        let start = 0;
        for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
          const event = JSON.parse(text.slice(start, end)) as { type: string; object: Obj };
          start = end + 1;
          if (event.type === 'BOOKMARK') continue;
          if (event.type === 'DELETED') cache.delete(`${event.object.metadata.namespace}/${event.object.metadata.name}`);
          else put(event.object);
          if (event.type === 'MODIFIED') options.onModified();
        }
        rest = text.slice(start);
      });
      res.on('error', () => undefined);
    });
    request.on('error', () => undefined);
  };

  const synced = list().then((rv) => watch(rv));
  return { cache, synced, stop: () => request?.destroy() };
}
