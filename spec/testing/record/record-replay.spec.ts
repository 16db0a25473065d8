/**
 * Record and replay: a controller's WatchEvents and ReconcileEvents as JSON lines, replayed in virtual time.
 */
import { expect } from 'chai';
import type { V1Node } from '@kubernetes/client-node';
import { PassThrough } from 'node:stream';
import { of, takeUntil, timer, type Observable } from 'rxjs';
import {
  informerFactory,
  reconcile,
  toKeys,
  type ControllerContext,
  type ControllerDefinition,
  type ReconcileEvent,
  type ReconcileKeyRequest,
} from '../../../src/index.js';
import { marbleSource, parseRecording, recorder, replay, watchEvent } from '../../../src/testing/index.js';
import { virtual } from '../../controller/helpers.js';

const NODE = { apiVersion: 'v1', kind: 'Node' };
const node = (name: string, resourceVersion: string, ready = true): V1Node => ({
  metadata: { name, resourceVersion, labels: { ready: String(ready) } },
});

/** A controller that requeues a node until it is ready, and fails once on `flaky`. */
function controller(
  context: Pick<ControllerContext, 'informers' | 'scheduler'>,
  requeueMs = 1000,
): Observable<ReconcileEvent> {
  const nodes = context.informers.for<V1Node>(NODE);
  const failed = new Set<string>();
  return nodes.events$.pipe(
    toKeys(),
    reconcile(
      ({ key, object }: ReconcileKeyRequest & { object: V1Node | undefined }) => {
        if (key === 'flaky' && !failed.has(key)) {
          failed.add(key);
          throw new Error('flaky once');
        }
        return object?.metadata?.labels?.ready === 'false' ? { requeueAfter: requeueMs } : undefined;
      },
      { lookup: nodes, gate: nodes.synced$, scheduler: context.scheduler },
    ),
  );
}

/** Records `controller` in virtual time over a scripted watch; returns the JSON lines. */
function recordRun(): string[] {
  const lines: string[] = [];
  virtual((helpers) => {
    const { scheduler } = helpers;
    const tape = recorder((line) => lines.push(line), { scheduler });
    const source = marbleSource(helpers, {
      'v1/Node': {
        marble: 'a 99ms b 99ms c',
        values: {
          a: watchEvent.relist([node('n1', '1'), node('n2', '2', false)]),
          b: node('flaky', '3'),
          c: node('n2', '4', true),
        },
      },
    });
    const informers = informerFactory(undefined as never, { scheduler, source: tape.source(source) });
    controller({ informers, scheduler })
      .pipe(tape.reconcileEvents(), takeUntil(timer(5000)))
      .subscribe();
  });
  return lines;
}

/** `start` as the controller named `nodes`. */
function nodes(start: ControllerDefinition['start']): ControllerDefinition {
  return { name: 'nodes', start };
}

describe('record and replay', () => {
  it("records WatchEvents and ReconcileEvents as JSON lines, stamped with the scheduler's time", () => {
    const records = parseRecording(recordRun());
    expect(records.slice(0, 4).map((r) => `${r.t} ${r.kind} ${r.event.type}`)).to.deep.equal([
      '0 watch relistStarted',
      '0 watch listed',
      '0 watch listed',
      '0 watch relistDone',
    ]);
    expect(
      records.filter((r) => r.kind === 'reconcile' && r.event.type === 'retrying').map((r) => [r.t, r.event]),
    ).to.deep.equal([
      [
        100,
        {
          type: 'retrying',
          key: 'flaky',
          attempt: 1,
          reasons: ['added flaky'],
          delayMs: 5,
          failures: 1,
          error: 'flaky once',
        },
      ],
    ]);
    expect(records.find((r) => r.kind === 'watch' && r.event.type === 'added')).to.deep.include({
      stream: 'v1/Node',
      t: 100,
    });
  });

  it('writes lines to a Node.js writable stream, one per line', () => {
    const stream = new PassThrough();
    const tape = recorder(stream);
    of(watchEvent.bookmark('7')).pipe(tape.watchEvents('v1/Node')).subscribe();
    const text = String(stream.read());
    expect(text.endsWith('\n')).to.equal(true);
    expect(parseRecording(text)).to.have.length(1);
  });

  it('replays a recording to the same controller without a difference', () => {
    const report = replay(
      recordRun(),
      nodes((context) => controller(context)),
    );
    expect(report.divergence).to.equal(undefined);
    expect(report.identical).to.equal(true);
    expect(report.replayed.map((d) => `${d.t} ${d.key} ${d.decision}`).slice(0, 4)).to.deep.equal([
      '0 n1 succeeded',
      '0 n2 succeeded',
      '0 n2 requeued +1000',
      '100 flaky failed',
    ]);
  });

  it('reports the first decision a changed controller makes differently', () => {
    const report = replay(
      recordRun(),
      nodes((context) => controller(context, 500)),
    );
    expect(report.identical).to.equal(false);
    expect(report.divergence).to.deep.include({
      key: 'n2',
      index: 1,
      t: 0,
      recorded: 'requeued +1000',
      replayed: 'requeued +500',
    });
    expect(report.divergence!.message).to.equal(
      'key n2, decision 2, recorded at 0 ms: recorded requeued +1000, replayed requeued +500',
    );
  });

  it('names the line of a recording that is not one', () => {
    expect(() =>
      parseRecording([
        '{"t":0,"kind":"watch","stream":"v1/Node","event":{"type":"bookmark","resourceVersion":"1"}}',
        'nope',
      ]),
    ).to.throw(SyntaxError, /^recording line 2 is not JSON/);
    expect(() => parseRecording('{"t":0,"kind":"other","event":{"type":"x"}}')).to.throw(
      TypeError,
      /^recording line 1 is not a watch or reconcile record/,
    );
  });

  it("fails the controller's informer loudly when the recording lacks its stream", () => {
    const report = replay(
      recordRun(),
      nodes((context) =>
        controller({
          ...context,
          informers: {
            ...context.informers,
            for: (_r, o) => context.informers.for({ apiVersion: 'v1', kind: 'Pod' }, o),
          },
        }),
      ),
    );
    expect(report.replayed.at(-1)?.decision).to.equal(
      'error replay: the recording has no stream v1/Pod; it has v1/Node',
    );
  });
});
