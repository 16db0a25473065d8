/**
 * Who says an informer's health, and only once: the informer itself by default (to its connection's handler), a
 * controller that routes it to `onError`, the manager that logs it, the virtual cluster that collects it for a test.
 * And selectors checked when the watch is built.
 */
import { expect } from 'chai';
import { asyncScheduler, EMPTY, NEVER, of, type SchedulerLike } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { controller, InformerHealthError } from '../../src/controller/builder/index.js';
import { controllerContext, startController, type ControllerContext } from '../../src/controller/context/index.js';
import { reconcile } from '../../src/controller/index.js';
import { toKeys } from '../../src/controller/triggers/index.js';
import { informer, informerFactory } from '../../src/informer/index.js';
import { manager } from '../../src/manager/index.js';
import { runController, virtualCluster, type VirtualCluster } from '../../src/testing/index.js';
import type { Connection, Transport } from '../../src/transport/index.js';
import { listWatch } from '../../src/watch/index.js';
import { recordingLogger } from '../manager/harness.js';

const WIDGETS = { apiVersion: 'example.com/v1', kind: 'Widget' } as const;
const CONFIG_MAPS = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

/** A context over `connection`'s own informer factory, always open, never stopping. */
function contextOn(connection: Connection, scheduler?: SchedulerLike): ControllerContext {
  return controllerContext({
    name: 'spec',
    connection,
    informers: informerFactory(connection, scheduler ? { scheduler } : {}),
    scheduler: scheduler ?? asyncScheduler,
    random: Math.random,
    reportError: () => undefined,
    gate: of(true),
    leader$: of(true),
    stop$: NEVER,
    drainTimeout: 30_000,
    recorder: undefined,
    onWarning: () => undefined,
  });
}

/** Runs `body` on a fresh virtual cluster in virtual time until `untilMs`, with process warnings captured. */
function onVirtualCluster(
  untilMs: number,
  body: (cluster: VirtualCluster, scheduler: TestScheduler) => { unsubscribe(): void } | void,
): {
  cluster: VirtualCluster;
  warnings: string[];
} {
  const warnings: string[] = [];
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error) => {
    warnings.push(String(warning));
  }) as typeof process.emitWarning;
  let cluster!: VirtualCluster;
  try {
    const scheduler = new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    });
    scheduler.run(() => {
      cluster = virtualCluster({ scheduler });
      const running = body(cluster, scheduler);
      scheduler.schedule(() => {
        running?.unsubscribe();
        cluster.close();
      }, untilMs);
    });
  } finally {
    process.emitWarning = emit;
  }
  return { cluster, warnings };
}

describe('informer health: said once, where the user sees it', () => {
  it('an informer over a virtual cluster reports an unknown kind to the cluster, and nothing to stderr', () => {
    const { cluster, warnings } = onVirtualCluster(5_000, (c, scheduler) =>
      informer(c, WIDGETS, { scheduler }).events$.subscribe(),
    );
    expect(cluster.health.map((r) => r.message)).to.deep.equal([
      'Widget example.com/v1: 404 UnknownResource: unknown resource kind "Widget" in apiVersion "example.com/v1"; asking discovery again after backoff (retrying with backoff)',
    ]);
    expect(warnings).to.deep.equal([]);
  });

  it('the README pattern (informer, toKeys, reconcile) reports once per cause, although three streams share the watch', () => {
    const { cluster } = onVirtualCluster(60_000, (c, scheduler) => {
      const widgets = informer(c, WIDGETS, { scheduler });
      return widgets.events$
        .pipe(
          toKeys(),
          reconcile(() => undefined, { lookup: widgets, gate: widgets.synced$, scheduler }),
        )
        .subscribe();
    });
    expect(cluster.health.map((r) => r.type)).to.deep.equal(['failing']);
  });

  it("a shared watch of an informerFactory reports once for all its views, to the factory's onHealth when given", () => {
    const reports: string[] = [];
    onVirtualCluster(5_000, (c, scheduler) => {
      const factory = informerFactory(c, {
        scheduler,
        onHealth: (report) => reports.push(`${report.type} ${report.watch}`),
      });
      const first = factory.for(WIDGETS, { namespace: 'default' }).events$.subscribe();
      first.add(factory.for(WIDGETS, { namespace: 'default' }).status$.subscribe());
      return first;
    });
    expect(reports).to.deep.equal(['failing Widget example.com/v1 in default']);
  });

  it('controller() with an onError takes the reports over: one InformerHealthError, nothing from the informer itself', () => {
    const errors: Error[] = [];
    const { cluster, warnings } = onVirtualCluster(5_000, (c, scheduler) =>
      startController(
        {
          name: 'widgets',
          start: (context) =>
            controller({ context, for: WIDGETS, reconcile: () => undefined, onError: (error) => errors.push(error) }),
        },
        { connection: c, scheduler, events: false },
      ).subscribe(),
    );
    expect(errors.map((e) => [e.constructor, e.message])).to.deep.equal([
      [
        InformerHealthError,
        'informer Widget example.com/v1: 404 UnknownResource: unknown resource kind "Widget" in apiVersion "example.com/v1"; asking discovery again after backoff; retrying with backoff',
      ],
    ]);
    expect(cluster.health).to.deep.equal([]);
    expect(warnings).to.deep.equal([]);
  });

  it("controller() without an onError leaves the reports to its informers: once, to the connection's handler", () => {
    const { cluster, warnings } = onVirtualCluster(5_000, (c, scheduler) =>
      startController(
        {
          name: 'widgets',
          start: (context) => controller({ context, for: WIDGETS, owns: [CONFIG_MAPS], reconcile: () => undefined }),
        },
        { connection: c, scheduler, events: false },
      ).subscribe(),
    );
    expect(warnings).to.deep.equal([]);
    expect(cluster.health.map((r) => `${r.type} ${r.watch}`)).to.deep.equal(['failing Widget example.com/v1']);
  });

  it('runController collects the health of the controller under test on its cluster, never in process warnings', () => {
    const warnings: string[] = [];
    const emit = process.emitWarning;
    process.emitWarning = ((warning: string | Error) => {
      warnings.push(String(warning));
    }) as typeof process.emitWarning;
    const seen: string[] = [];
    let health: readonly unknown[] = [];
    try {
      const scheduler = new TestScheduler((actual, expected) => {
        expect(actual).to.deep.equal(expected);
      });
      scheduler.run(() => {
        const run = runController(
          { name: 'widgets', start: (context) => controller({ context, for: WIDGETS, reconcile: () => undefined }) },
          {
            scheduler,
            until: 5_000,
            onHealth: (report) => seen.push(report.type),
          },
        );
        scheduler.schedule(() => (health = [...(run.cluster.health ?? [])]), 4_999);
      });
    } finally {
      process.emitWarning = emit;
    }
    expect(warnings).to.deep.equal([]);
    expect(seen).to.deep.equal(['failing']);
    expect(health).to.have.length(1);
  });

  it("the manager's informers say nothing themselves: the manager logs their status", () => {
    let logged: string[] = [];
    const { cluster, warnings } = onVirtualCluster(5_000, (c, scheduler) => {
      const logger = recordingLogger(scheduler);
      scheduler.schedule(
        () => (logged = logger.records.filter((r) => r.msg === 'informer error').map((r) => String(r.reason))),
        4_999,
      );
      return manager({
        connection: c,
        name: 'spec',
        signals: false,
        metrics: false,
        health: false,
        logger,
        scheduler,
        controllers: [
          {
            name: 'widgets',
            start: (context) =>
              context.informers.for(WIDGETS).events$.pipe(
                toKeys(),
                context.reconcile(() => undefined, {}),
              ),
          },
        ],
      }).subscribe();
    });
    expect(logged[0]).to.equal('UnknownResource');
    expect(cluster.health).to.deep.equal([]);
    expect(warnings).to.deep.equal([]);
  });
});

describe('selectors are checked when the watch is built', () => {
  const transport: Transport = { get: () => NEVER, watch: () => NEVER, request: () => NEVER };
  const bad = 'app in (web';
  const message =
    "labelSelector \"app in (web\" is invalid at character 12 (end of text): unable to parse requirement: found '', expected: ',' or ')'";

  it('informer() throws a RangeError naming the selector and where it is wrong, before anything is sent', () => {
    expect(() => informer(transport, CONFIG_MAPS, { labelSelector: bad })).to.throw(RangeError, `informer: ${message}`);
  });

  it('informerFactory().for() and controller() throw the same', () => {
    expect(() => informerFactory(transport).for(CONFIG_MAPS, { fieldSelector: 'spec.nodeName' })).to.throw(
      RangeError,
      "informerFactory.for(ConfigMap v1 spec.nodeName): fieldSelector \"spec.nodeName\" is invalid at character 1 (\"spec.nodeName\"): invalid selector: 'spec.nodeName'; can't understand 'spec.nodeName'",
    );
    expect(() =>
      controller({
        context: contextOn(transport),
        for: { resource: CONFIG_MAPS, options: { labelSelector: bad } },
        reconcile: () => undefined,
      }),
    ).to.throw(RangeError, message);
  });

  it('listWatch() errors at subscription without a request, and every selector the server accepts passes', () => {
    const requests: string[] = [];
    const counting: Transport = {
      get: (path) => {
        requests.push(path);
        return NEVER;
      },
      watch: () => NEVER,
      request: () => EMPTY,
    };
    let error: unknown;
    listWatch(counting, CONFIG_MAPS, { labelSelector: 'a=b c' }).subscribe({ error: (e: unknown) => (error = e) });
    expect((error as Error).message).to.equal(
      "listWatch: labelSelector \"a=b c\" is invalid at character 5 (\"c\"): found 'c', expected: ',' or 'end of string'",
    );
    expect(requests).to.deep.equal([]);
    for (const labelSelector of [
      '',
      'app',
      '!app',
      'app=web,tier!=db',
      'env in (a,b),x notin ()',
      'replicas>1',
      'n<3',
      'example.com/greet',
    ]) {
      expect(
        () => informer(transport, CONFIG_MAPS, { labelSelector, fieldSelector: 'metadata.name=x,spec.nodeName!=' }),
        labelSelector,
      ).not.to.throw();
    }
  });
});
