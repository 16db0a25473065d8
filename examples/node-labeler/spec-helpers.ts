/**
 * What the node labeler's integration and e2e specs share: a transport that makes the read/write race certain,
 * and the printed lines sorted out per node.
 * @module
 */
import { defer, switchMap } from 'rxjs';
import type { Connection } from '../../src/index.js';
import type { Transport, TransportRequest } from '../../src/extend.js';
import { recordingTransport, type RecordedRequest } from '../shared/recording-transport.js';

/**
 * A transport over `connection` that records every `request()` and holds back the first request matching `when`
 * until `interloper` (another writer) has finished: the labeler read the node before that write and writes after
 * it, every time, with no timing involved.
 */
export function racingTransport(
  connection: Connection,
  when: (request: TransportRequest) => boolean,
  interloper: () => Promise<unknown>,
): { readonly transport: Transport; readonly requests: RecordedRequest[] } {
  const recording = recordingTransport(connection);
  let raced = false;
  const transport: Transport = {
    ...recording.transport,
    request: (request) => {
      if (raced || !when(request)) return recording.transport.request(request);
      raced = true;
      return defer(interloper).pipe(switchMap(() => recording.transport.request(request)));
    },
  };
  return { transport, requests: recording.requests };
}

/**
 * The lines that name node `name` as a whole word, in order, with consecutive repeats of the re-check line folded
 * into one: how often a node waiting for its providerID is re-checked depends on how long it waits, which a
 * real-time spec cannot pin. Every other repeat stays, so a line printed twice by mistake still shows.
 */
export function linesAbout(lines: readonly string[], name: string): string[] {
  const word = new RegExp(`(^|[\\s[])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[\\s\\]])`);
  return lines
    .filter((line) => word.test(line))
    .filter((line, i, all) => !(line.includes('re-checking in') && line === all[i - 1]));
}
