/**
 * The external record a Website publishes while it exists: a DNS entry, kept here as one JSON file per Website in
 * a directory (a real operator would call a DNS provider's API the same way). Outside the cluster, so only the
 * finalizer can promise it is removed.
 * @module
 */
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { defer, from, of, type Observable } from 'rxjs';

/** One DNS entry: the Website's hostname, answered with its Service's cluster IP (or a CNAME to the Service). */
export interface DnsRecord {
  readonly hostname: string;
  readonly type: 'A' | 'CNAME';
  /** The cluster IP for `A`, the Service's DNS name for `CNAME`. */
  readonly value: string;
  /** Who published it. */
  readonly website: { readonly namespace: string; readonly name: string; readonly uid: string };
}

/** What writing a record did. */
export type RecordChange = 'created' | 'updated' | 'unchanged';

/**
 * Where records live. Every call is a cold Observable that emits once; each is idempotent, so a retried or repeated
 * reconcile (or cleanup) is harmless.
 */
export interface RecordStore {
  /** Publishes `record`, replacing what the Website had; `unchanged` when it was there already, as is. */
  put(record: DnsRecord): Observable<RecordChange>;
  /** Removes the Website's record; emits whether there was one. */
  remove(namespace: string, name: string): Observable<boolean>;
  /** Where the Website's record is, for messages (a file path). */
  where(namespace: string, name: string): string;
}

/** The record's text: what is compared, and what is written. */
function recordText(record: DnsRecord): string {
  return `${JSON.stringify(record, null, 2)}\n`;
}

/**
 * Records as files `<namespace>_<name>.json` in `directory` (created when missing). `_` can appear in neither a
 * namespace nor a Website name, so file names never collide.
 *
 * # Guarantees
 * - `put` writes only when the text differs, through a temporary file renamed into place, so a reader (or a crash)
 *   never sees half a record.
 * - `remove` of a missing file is no error (it emits `false`): a cleanup that runs again after a crash succeeds.
 * - Any other file system error fails the call with Node's error, which names the path.
 */
export function fileRecords(directory: string): RecordStore {
  const where = (namespace: string, name: string): string => join(directory, `${namespace}_${name}.json`);
  return {
    where,
    put: (record) =>
      defer(() =>
        from(
          (async (): Promise<RecordChange> => {
            const path = where(record.website.namespace, record.website.name);
            const text = recordText(record);
            const existing = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
              if (error.code === 'ENOENT') return undefined;
              throw error;
            });
            if (existing === text) return 'unchanged';
            await mkdir(directory, { recursive: true });
            const temporary = `${path}.${process.pid}.tmp`;
            await writeFile(temporary, text, 'utf8');
            await rename(temporary, path);
            return existing === undefined ? 'created' : 'updated';
          })(),
        ),
      ),
    remove: (namespace, name) =>
      defer(() =>
        from(
          rm(where(namespace, name)).then(
            () => true,
            (error: NodeJS.ErrnoException) => {
              if (error.code === 'ENOENT') return false;
              throw error;
            },
          ),
        ),
      ),
  };
}

/** Records in memory, answered synchronously (for virtual-time specs); `texts` holds what a file would. */
export function memoryRecords(): RecordStore & { readonly texts: Map<string, string> } {
  const texts = new Map<string, string>();
  const where = (namespace: string, name: string): string => `memory:${namespace}/${name}`;
  return {
    texts,
    where,
    put: (record) =>
      defer(() => {
        const key = where(record.website.namespace, record.website.name);
        const before = texts.get(key);
        const text = recordText(record);
        texts.set(key, text);
        return of<RecordChange>(before === text ? 'unchanged' : before === undefined ? 'created' : 'updated');
      }),
    remove: (namespace, name) => defer(() => of(texts.delete(where(namespace, name)))),
  };
}
