/**
 * How `rxkube-test-cluster --log-requests` prints a request: one access-log line per request.
 * @module
 */
import type { RequestRecord } from '../apiserver/index.js';

/**
 * `<time> <status> <METHOD> <path>[?<query>] "<user agent>"`, e.g.
 * `2026-01-02T03:04:05.678Z 201 POST /api/v1/namespaces/default/configmaps "kubectl/v1.32.0 (linux/amd64)"`.
 *
 * # Guarantees
 * - One line (no line break inside): a user agent's quotes and control characters are escaped as in JSON; a request
 *   without a user agent shows `-`. Status 0 is a client that left before its (delayed) answer.
 */
export function requestLine(record: RequestRecord): string {
  const query = new URLSearchParams(record.query).toString();
  const agent = record.userAgent === undefined ? '-' : JSON.stringify(record.userAgent);
  return `${record.time} ${record.code} ${record.method} ${record.path}${query === '' ? '' : `?${query}`} ${agent}`;
}
