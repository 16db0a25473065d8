/**
 * The virtual cluster as a contract target: raw requests, watches and client-node's typed clients all go through
 * its in-process exchange (no socket), so the scenarios run unchanged against the server core served in process.
 */
import { createRequire } from 'node:module';
import type { IncomingHttpHeaders } from 'node:http';
import {
  createConfiguration,
  ResponseContext,
  SelfDecodingBody,
  ServerConfiguration,
  setHeaderMiddleware,
  wrapHttpLibrary,
  type Configuration,
  type RequestContext,
} from '@kubernetes/client-node';
import { firstValueFrom } from 'rxjs';
import type { VirtualCluster } from '../../../src/testing/index.js';
import {
  parseJson,
  requestPayload,
  watchOver,
  type OpenWatch,
  type RawRequestOptions,
  type RawResponse,
} from './raw.js';

/** The origin client-node's typed clients put in front of paths; only the path and query reach the cluster. */
const ORIGIN = 'https://virtual-cluster.invalid';

/** client-node's own User-Agent (`kubernetes-client-javascript/<version>`), as `makeApiClient` sends it. */
const clientNodeUserAgent = `kubernetes-client-javascript/${(createRequire(import.meta.url)('@kubernetes/client-node/package.json') as { version: string }).version}`;

/** As `rawRequest` over HTTP: the same headers, the answer whatever its status. */
export async function virtualRaw(
  cluster: VirtualCluster,
  method: string,
  path: string,
  options: RawRequestOptions = {},
): Promise<RawResponse> {
  const headers: Record<string, string> = { accept: options.accept ?? 'application/json' };
  if (options.userAgent !== undefined) headers['user-agent'] = options.userAgent;
  const body = requestPayload(options.body);
  if (body !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
  const answer = await firstValueFrom(
    cluster.exchange({ method, path, headers, ...(body !== undefined ? { body } : {}) }),
  );
  return {
    status: answer.status,
    headers: answer.headers as IncomingHttpHeaders,
    text: answer.text,
    json: parseJson(answer.text),
  };
}

/** As `openWatch` over HTTP, over the cluster's in-process stream. */
export function virtualOpenWatch(cluster: VirtualCluster, path: string, accept = 'application/json'): OpenWatch {
  return watchOver((handlers) => {
    const subscription = cluster.exchangeStream({ method: 'GET', path, headers: { accept } }).subscribe({
      next: (event) => {
        switch (event.kind) {
          case 'head':
            handlers.head(event.status, lowerCased(event.headers));
            return;
          case 'chunk':
            handlers.chunk(event.text);
            return;
          case 'response':
            handlers.head(event.status, lowerCased(event.headers));
            handlers.chunk(typeof event.body === 'string' ? event.body : event.body.toString('utf8'));
            handlers.end();
            return;
          case 'end':
            handlers.end();
        }
      },
      error: (error: unknown) => handlers.error(error instanceof Error ? error : new Error(String(error))),
    });
    return () => subscription.unsubscribe();
  });
}

function lowerCased(headers: Readonly<Record<string, string>>): IncomingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

/**
 * A client-node `Configuration` whose HTTP library is the cluster's exchange: typed clients built on it
 * (`new CoreV1Api(configuration)`) talk to the virtual cluster with client-node's own request building, User-Agent
 * and response decoding.
 */
export function virtualClientConfiguration(cluster: VirtualCluster): Configuration {
  const httpApi = wrapHttpLibrary({
    send: async (request: RequestContext): Promise<ResponseContext> => {
      const url = new URL(request.getUrl());
      const body = request.getBody();
      if (body !== undefined && typeof body !== 'string')
        throw new Error('the virtual cluster takes string bodies only');
      const answer = await firstValueFrom(
        cluster.exchange({
          method: request.getHttpMethod(),
          path: `${url.pathname}${url.search}`,
          headers: request.getHeaders(),
          ...(body !== undefined ? { body } : {}),
        }),
      );
      return new ResponseContext(
        answer.status,
        { ...answer.headers },
        new SelfDecodingBody(Promise.resolve(Buffer.from(answer.text, 'utf8'))),
      );
    },
  });
  return createConfiguration({
    baseServer: new ServerConfiguration(ORIGIN, {}),
    httpApi,
    middleware: [setHeaderMiddleware('User-Agent', clientNodeUserAgent)],
  });
}
