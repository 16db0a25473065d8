/**
 * The website operator's options, their defaults and their validation.
 * @module
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileRecords, type RecordStore } from './records.js';

/** The field manager of every write: one manager owns the Website's objects and its status. */
export const DEFAULT_FIELD_MANAGER = 'website-operator';

/** Where the DNS record files go unless `recordsDirectory` says otherwise. */
export const DEFAULT_RECORDS_DIRECTORY = join(tmpdir(), 'rxkube-website-records');

/** The DNS zone of the records: a Website `blog` in `default` is `blog.default.<domain>`. */
export const DEFAULT_DOMAIN = 'websites.example.test';

/** Websites reconciled at once (controller-runtime's `MaxConcurrentReconciles`). */
export const DEFAULT_WORKERS = 2;

/** How often a Website that is in line is looked at again anyway (its DNS record lives outside the cluster), ms. */
export const DEFAULT_RESYNC_PERIOD_MS = 300_000;

/** How soon a Website blocked by an object it does not own is looked at again, at most, ms. */
export const BLOCKED_RECHECK_MS = 30_000;

/** Options of `websiteController`. */
export interface WebsiteOperatorOptions {
  /** Watch Websites (and their objects) in this namespace only. Default: every namespace. */
  readonly namespace?: string;
  /** Where DNS records go. Default: files in `recordsDirectory`. */
  readonly records?: RecordStore;
  /** The directory of the record files when `records` is not given. Default {@link DEFAULT_RECORDS_DIRECTORY}. */
  readonly recordsDirectory?: string;
  /** The records' DNS zone. Default {@link DEFAULT_DOMAIN}. */
  readonly domain?: string;
  /** The field manager of every write. Default {@link DEFAULT_FIELD_MANAGER}. */
  readonly fieldManager?: string;
  /** Websites reconciled at once. Default {@link DEFAULT_WORKERS}. */
  readonly workers?: number;
  /** How often a Website in line is re-checked, ms. Default {@link DEFAULT_RESYNC_PERIOD_MS}. */
  readonly resyncPeriodMs?: number;
  /** Where the operator's lines (one per Event) go. Default `console.log`. */
  readonly print?: (line: string) => void;
}

/** The options with their defaults filled in. */
export interface WebsiteSettings {
  readonly namespace: string | undefined;
  readonly records: RecordStore;
  readonly domain: string;
  readonly fieldManager: string;
  readonly workers: number;
  readonly resyncPeriodMs: number;
  readonly print: (line: string) => void;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * Fills in the defaults and checks every option, so a bad one is a clear error when the controller is defined.
 *
 * # Guarantees
 * - Throws a `TypeError` naming the option for a namespace that is not a DNS label, a domain that is not a DNS
 *   name, an empty field manager (or one over the API's 128 bytes), and a `RangeError` for workers or a resync
 *   period out of range.
 */
export function resolveOptions(options: WebsiteOperatorOptions): WebsiteSettings {
  const namespace = options.namespace || undefined;
  if (namespace !== undefined && !(namespace.length <= 63 && DNS_LABEL.test(namespace))) {
    throw new TypeError(`websiteOperator: namespace must be a DNS label, got ${JSON.stringify(namespace)}`);
  }
  const domain = options.domain ?? DEFAULT_DOMAIN;
  if (domain.length > 200 || !domain.split('.').every((label) => label.length <= 63 && DNS_LABEL.test(label))) {
    throw new TypeError(
      `websiteOperator: domain must be a DNS name of at most 200 characters, got ${JSON.stringify(domain)}`,
    );
  }
  const fieldManager = options.fieldManager ?? DEFAULT_FIELD_MANAGER;
  if (typeof fieldManager !== 'string' || fieldManager === '' || Buffer.byteLength(fieldManager) > 128) {
    throw new TypeError(`websiteOperator: fieldManager must be 1 to 128 bytes, got ${JSON.stringify(fieldManager)}`);
  }
  const workers = options.workers ?? DEFAULT_WORKERS;
  if (!Number.isInteger(workers) || workers < 1)
    throw new RangeError(`websiteOperator: workers must be an integer >= 1, got ${String(workers)}`);
  const resyncPeriodMs = options.resyncPeriodMs ?? DEFAULT_RESYNC_PERIOD_MS;
  if (typeof resyncPeriodMs !== 'number' || !Number.isFinite(resyncPeriodMs) || resyncPeriodMs <= 0) {
    throw new RangeError(
      `websiteOperator: resyncPeriodMs must be a finite number of ms > 0, got ${String(resyncPeriodMs)}`,
    );
  }
  return {
    namespace,
    records: options.records ?? fileRecords(options.recordsDirectory ?? DEFAULT_RECORDS_DIRECTORY),
    domain,
    fieldManager,
    workers,
    resyncPeriodMs,
    print: options.print ?? ((line) => console.log(line)),
  };
}
