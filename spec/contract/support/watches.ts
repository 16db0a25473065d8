/** Helpers shared by the watch scenarios: open watches that are always closed, ConfigMap writes, predicates. */
import { expect } from 'chai';
import type { OpenWatch, WatchEventLine } from './raw.js';
import type { ContractSession } from './target.js';

/** The suite namespace's core/v1 collection path, e.g. `/api/v1/namespaces/<ns>/configmaps`. */
export function corePath(session: ContractSession, resource: string): string {
  return `/api/v1/namespaces/${session.namespace}/${resource}`;
}

/** Matches watch events whose object has this name. */
export const isNamed =
  (name: string) =>
  (event: WatchEventLine): boolean =>
    event.object?.metadata?.name === name;

/** What {@link useConfigMapWatches} gives a suite. */
export interface ConfigMapWatches {
  /** The suite namespace's ConfigMap collection path. */
  path(): string;
  /** Opens `?watch=1&<query>` on the ConfigMaps and asserts HTTP 200; closed after the test. */
  watch(query: string): Promise<OpenWatch>;
  /** Creates a ConfigMap with `data: {v: '0'}` and the extra metadata; asserts 201 and returns the object. */
  create(name: string, metadata?: Record<string, unknown>): Promise<any>;
  /** The collection's current list resourceVersion (a cheap `limit=1` list). */
  currentRv(): Promise<string>;
}

/**
 * Registers an `afterEach` in the calling `describe` that closes every watch the test opened.
 *
 * # Guarantees
 * - No watch outlives its test, pass or fail, so no socket keeps mocha alive.
 */
export function useConfigMapWatches(session: () => ContractSession): ConfigMapWatches {
  const open: OpenWatch[] = [];
  afterEach(() => {
    for (const watch of open.splice(0)) watch.close();
  });
  const path = (): string => corePath(session(), 'configmaps');
  return {
    path,
    async watch(query) {
      const opened = await session().openWatch(`${path()}?watch=1&${query}`);
      open.push(opened);
      expect((await opened.response).status).to.equal(200);
      return opened;
    },
    async create(name, metadata = {}) {
      const made = await session().raw('POST', path(), { body: { metadata: { name, ...metadata }, data: { v: '0' } } });
      expect(made.status, made.text).to.equal(201);
      return made.json;
    },
    async currentRv() {
      return (await session().raw('GET', `${path()}?limit=1`)).json.metadata.resourceVersion;
    },
  };
}
