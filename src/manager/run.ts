/**
 * One run of a manager, from its subscription to its end: servers, leadership, informers, controllers, and the
 * graceful stop. Internal; `manager()` wraps it.
 */
import { Registry } from 'prom-client';
import {
  BehaviorSubject,
  combineLatest,
  distinctUntilChanged,
  EMPTY,
  Observable,
  repeat,
  Subject,
  Subscription,
  timer,
  type Subscriber,
} from 'rxjs';
import { eventRecorder, type EventRecorder } from '../client/events/index.js';
import {
  bothMetrics,
  ReconcileCancelledError,
  type ReconcileEvent,
  type ReconcileMetrics,
} from '../controller/index.js';
import type { ControllerDefinition } from '../controller/context/index.js';
import type { InformerFactory } from '../informer/index.js';
import { leaderElection } from '../leader/index.js';
import { deduplicateWarnings, type WarningHandler } from '../transport/index.js';
import { managerControllerContext, type SharedContext } from './context.js';
import { credentialLiterals } from './credentials.js';
import { Readiness, runChecks, type CheckResult } from './health/index.js';
import { metricsRoutes, probeRoutes, serve } from './http/index.js';
import { managerInformers, type TrackedInformer } from './informers.js';
import {
  logEventReport,
  logInformerStatus,
  logLeaderEvent,
  logOutcome,
  logStaleRead,
  redactingLogger,
  redactor,
  type ManagerLogger,
} from './logging/index.js';
import { ControllerMetrics, createManagerMetrics, ReflectorMetrics, type ManagerMetrics } from './metrics/index.js';
import type { ManagerSettings } from './options.js';
import type { ManagerEvent, ServerAddress } from './types.js';
import { ManagerShards } from './sharding.js';

interface RunningController {
  readonly definition: ControllerDefinition;
  readonly metrics: ControllerMetrics | undefined;
  stream: Observable<ReconcileEvent> | undefined;
  subscription: Subscription | undefined;
  done: boolean;
}

type Phase = 'starting' | 'running' | 'draining' | 'releasing' | 'stopped';

export class ManagerRun {
  private readonly teardown = new Subscription();
  private readonly log: ManagerLogger;
  private readonly redact: (value: unknown) => unknown;
  /** The API server's warnings, each distinct text logged once (as controller-runtime's manager logs them). */
  private readonly onWarning: WarningHandler;
  private readonly metrics: ManagerMetrics | undefined;
  private readonly readiness: Readiness;
  private readonly tracked = new Map<string, TrackedInformer>();
  private readonly factory: InformerFactory;
  private readonly controllers: RunningController[] = [];
  private readonly leading: BehaviorSubject<boolean>;
  private readonly drain$ = new Subject<void>();
  private readonly release$ = new Subject<void>();
  private readonly recorder: EventRecorder | undefined;
  private phase: Phase = 'starting';
  private exitWhenStopped = false;
  private failure: Error | undefined;
  private cancelled = 0;
  private clean = true;
  private drainStartedAt = 0;
  private drainTimer: Subscription | undefined;
  private readinessTimer: Subscription | undefined;
  private ready = false;
  private syncedReported = false;
  private leaderRunning = false;
  private readonly identity: string | undefined;
  private readonly shards: ManagerShards | undefined;
  private shardsRunning = false;

  constructor(
    private readonly settings: ManagerSettings,
    private readonly out: Subscriber<ManagerEvent>,
    identity: string,
  ) {
    const { connection, scheduler } = settings;
    this.identity = settings.leader === undefined ? undefined : (settings.leader.identity ?? identity);
    const literals = credentialLiterals(connection, settings.redact, () =>
      [...this.tracked.values()]
        .filter(({ resource }) => resource.kind === 'Secret' && resource.apiVersion === 'v1')
        .map(({ informer }) => informer.current()),
    );
    this.redact = redactor(literals);
    this.log = redactingLogger(settings.logger, this.redact, { manager: settings.name });
    this.metrics =
      settings.metrics === undefined
        ? undefined
        : createManagerMetrics(settings.metrics.registry ?? new Registry(), settings.metrics.processMetrics);
    this.readiness = new Readiness(settings.health.failureThreshold);
    this.shards =
      settings.sharding === undefined
        ? undefined
        : new ManagerShards(
            connection,
            (warning) => this.onWarning(warning),
            scheduler,
            settings.sharding,
            settings.sharding.identity ?? this.identity ?? identity,
            this.log,
            this.metrics,
          );
    this.leading = new BehaviorSubject<boolean>(settings.leader === undefined);
    this.onWarning = deduplicateWarnings(({ text, method, path }) =>
      this.log.warn({ warning: text, method, path }, 'the API server sent a warning'),
    );
    this.recorder =
      settings.events === undefined
        ? undefined
        : eventRecorder(connection, {
            reportingController: settings.name,
            scheduler,
            random: settings.random,
            ...settings.events,
            onWarning: settings.events.onWarning ?? this.onWarning,
          });
    this.factory = managerInformers(
      connection,
      {
        // The manager logs every informer's status itself (`tap`), so the informers' own health reports stay quiet.
        scheduler,
        random: settings.random,
        ...settings.informers,
        onWarning: settings.informers.onWarning ?? this.onWarning,
        onHealth: settings.informers.onHealth ?? quiet,
      },
      (informer) => this.track(informer),
    );
  }

  start(): void {
    const recorder = this.recorder;
    if (recorder !== undefined)
      this.teardown.add(recorder.reports$.subscribe((report) => logEventReport(this.log, report)));
    const shared: SharedContext = {
      connection: this.settings.connection,
      informers: this.factory,
      scheduler: this.settings.scheduler,
      random: this.settings.random,
      leader$: this.leading.pipe(distinctUntilChanged()),
      stop$: this.drain$.asObservable(),
      drainTimeout: this.settings.shutdownTimeout,
      recorder: this.recorder,
      onWarning: this.onWarning,
    };
    for (const definition of this.settings.controllers) {
      const metrics = this.metrics === undefined ? undefined : new ControllerMetrics(this.metrics, definition.name);
      const running: RunningController = {
        definition,
        metrics,
        stream: undefined,
        subscription: undefined,
        done: false,
      };
      this.controllers.push(running);
      const logger = redactingLogger(this.settings.logger, this.redact, {
        manager: this.settings.name,
        controller: definition.name,
      });
      const shards = this.shards?.forController(definition.name);
      const hook = bothMetrics(this.runHook(definition.name, metrics), this.shards?.metricsOf(definition.name))!;
      const context = managerControllerContext(
        shared,
        definition.name,
        // A sharded controller is fenced by its ranges' Leases, not by leadership.
        definition.needLeaderElection !== false && shards === undefined,
        logger,
        hook,
        shards,
      );
      try {
        running.stream = definition.start(context);
        if (!(running.stream instanceof Observable))
          throw new TypeError(`start() returned ${typeof running.stream}, not an Observable`);
      } catch (error) {
        this.abort(
          new Error(
            `manager: controller ${definition.name} could not be built: ${error instanceof Error ? error.message : String(error)}`,
            { cause: error },
          ),
        );
        return;
      }
    }
    const servers: Array<Observable<readonly ['metrics' | 'health', ServerAddress]>> = [];
    const { metrics, health } = this.settings;
    if (metrics?.serve === true && this.metrics !== undefined) {
      const scrape = this.metrics.scrape;
      servers.push(
        tagged(
          'metrics',
          serve('metrics', metrics.host, metrics.port, metricsRoutes(scrape, Registry.PROMETHEUS_CONTENT_TYPE)),
        ),
      );
    }
    if (health.serve) {
      const text = (value: string): string => this.redact(value) as string;
      servers.push(
        tagged(
          'health',
          serve(
            'health',
            health.host,
            health.port,
            probeRoutes(
              () => this.healthChecks(),
              () => this.readyChecks(),
              text,
            ),
          ),
        ),
      );
    }
    if (servers.length === 0) {
      this.go({});
      return;
    }
    this.teardown.add(
      combineLatest(servers).subscribe({
        next: (addresses) => this.go(Object.fromEntries(addresses)),
        error: (error: unknown) => this.abort(error instanceof Error ? error : new Error(String(error))),
      }),
    );
  }

  /** Unsubscribed: cancel every run at once, release the Lease (best effort), close everything. */
  dispose(): void {
    if (this.phase !== 'stopped') this.phase = 'stopped';
    for (const controller of this.controllers) {
      controller.subscription?.unsubscribe();
      controller.metrics?.dispose();
    }
    this.drainTimer?.unsubscribe();
    this.readinessTimer?.unsubscribe();
    this.teardown.unsubscribe();
    // Nothing waits for pending events any more: give them up now rather than keep the process alive.
    this.recorder?.close({ timeoutMs: 0 }).subscribe();
    this.metrics?.remove();
  }

  private go(addresses: { metrics?: ServerAddress; health?: ServerAddress }): void {
    if (this.phase !== 'starting') return;
    this.phase = 'running';
    const { scheduler, leader } = this.settings;
    this.readiness.started = true;
    this.emit({ type: 'started', time: scheduler.now(), ...addresses });
    this.log.info(
      {
        ...(addresses.metrics ? { metrics: `${addresses.metrics.url}/metrics` } : {}),
        ...(addresses.health ? { health: `${addresses.health.url}/readyz` } : {}),
        ...(leader ? { lease: `${leader.namespace}/${leader.name}`, identity: this.identity } : {}),
        controllers: this.controllers.map(({ definition }) => definition.name),
      },
      'manager started',
    );
    if (leader !== undefined) this.campaign();
    if (this.shards !== undefined) this.shard(this.shards);
    for (const informer of this.tracked.values()) this.tap(informer);
    for (const controller of this.controllers) this.run(controller);
    this.evaluate();
    if (this.settings.signals !== undefined) {
      let received = 0;
      this.teardown.add(
        this.settings.signals.subscribe((signal) => {
          received += 1;
          if (received === 1) this.stop(`signal ${signal}`, true);
          else this.exitNow(signal);
        }),
      );
    }
    if (this.settings.stop$ !== undefined)
      this.teardown.add(this.settings.stop$.subscribe(() => this.stop('stop$', false)));
  }

  private campaign(): void {
    const { connection, leader, scheduler, exit } = this.settings;
    const { standby, ...options } = leader!;
    const election$ = leaderElection(connection, {
      ...options,
      identity: this.identity!,
      scheduler,
      exit,
      stop$: this.release$,
      onEvent: (event) => logLeaderEvent(this.log, event),
      onWarning: options.onWarning ?? this.onWarning,
    });
    // 'standby' campaigns again after a loss; a release (graceful stop) ends it for good.
    const leading$ = standby
      ? election$.pipe(repeat({ delay: () => (this.phase === 'running' ? timer(0, scheduler) : EMPTY) }))
      : election$;
    this.leaderRunning = true;
    this.teardown.add(
      leading$.subscribe({
        next: (leading) => {
          if (leading === this.leading.value) return;
          this.metrics?.leaderStatus.set({ name: leader!.name }, leading ? 1 : 0);
          // Said before it takes effect, so `leading` precedes the runs it starts (or the aborts it causes).
          this.emit({ type: 'leading', time: scheduler.now(), leading });
          this.log.info(
            { lease: `${leader!.namespace}/${leader!.name}`, identity: this.identity },
            leading ? 'leading' : 'stopped leading',
          );
          this.leading.next(leading);
        },
        complete: () => {
          this.leaderRunning = false;
          if (this.phase === 'releasing') this.finish();
          else if (this.phase === 'draining' && standby) {
            // Lost during a graceful stop: there is no Lease left to release, and the stop goes on (a signal's exit
            // included) as it would have; the closed gate already aborted the runs in flight.
          } else if (this.phase === 'running' || this.phase === 'draining') {
            // onLost 'exit' with an exit that returned (tests): leadership is over and cannot come back.
            this.abort(new Error('manager: leadership lost'));
          }
        },
      }),
    );
    this.metrics?.leaderStatus.set({ name: leader!.name }, this.leading.value ? 1 : 0);
  }

  /** Runs the sharding engine; its graceful stop starts with the manager's and hands every range over. */
  private shard(shards: ManagerShards): void {
    const { connection, scheduler, random } = this.settings;
    this.shardsRunning = true;
    this.teardown.add(
      shards.start(connection, {
        scheduler,
        random,
        stop$: this.drain$,
        onWarning: this.onWarning,
        onState: (state) => this.emit({ type: 'shards', time: scheduler.now(), state }),
        done: () => {
          this.shardsRunning = false;
          if (this.phase === 'releasing' && !this.leaderRunning) this.finish();
        },
      }),
    );
  }

  private track(informer: TrackedInformer): void {
    this.tracked.set(informer.name, informer);
    this.readiness.add(informer.name);
    // Informers handed out after the start (built lazily by a controller) are watched from then on.
    if (this.phase === 'running' || this.phase === 'draining') this.tap(informer);
  }

  private tap({ name, informer }: TrackedInformer): void {
    const { scheduler } = this.settings;
    const reflector = this.metrics === undefined ? undefined : new ReflectorMetrics(this.metrics, name);
    this.teardown.add(
      informer.status$.subscribe((status) => {
        reflector?.status(status);
        this.readiness.status(name, status, scheduler.now());
        logInformerStatus(this.log, name, status);
        this.emit({ type: 'informer', time: scheduler.now(), informer: name, status });
        this.evaluate();
      }),
    );
    this.teardown.add(
      informer.synced$.subscribe((synced) => {
        if (!synced) return;
        this.readiness.synced(name);
        this.log.info({ informer: name, objects: informer.current().size }, 'informer synced');
        this.evaluate();
      }),
    );
    this.teardown.add(
      informer.problems$.subscribe((problem) => {
        reflector?.problem(problem);
        this.log.warn(
          {
            informer: name,
            reason: problem.reason,
            count: problem.count,
            message: problem.message,
            ...(problem.key ? { key: problem.key } : {}),
          },
          'informer problem',
        );
      }),
    );
    if (reflector !== undefined)
      this.teardown.add(informer.store$.subscribe((store) => reflector.resourceVersion(store.resourceVersion)));
  }

  private run(controller: RunningController): void {
    const name = controller.definition.name;
    controller.subscription = controller.stream!.subscribe({
      next: (event) => {
        if (event.type === 'rejected')
          this.log.warn({ controller: name, trigger: event.trigger, error: event.error }, 'trigger rejected');
        if (event.type === 'failed' && event.error instanceof ReconcileCancelledError) this.cancelled += 1;
        this.emit({ type: 'controller', time: event.time, controller: name, event });
      },
      error: (error: unknown) => {
        controller.done = true;
        const failure = error instanceof Error ? error : new Error(String(error));
        this.log.error({ controller: name, error: failure }, 'controller failed');
        this.failure ??= new Error(`manager: controller ${name} failed: ${failure.message}`, { cause: failure });
        this.stop(`controller ${name} failed`, false);
        this.drained();
      },
      complete: () => {
        controller.done = true;
        if (this.phase === 'running') this.log.info({ controller: name }, 'controller completed');
        this.drained();
      },
    });
  }

  /** Graceful stop: intake off, drain (bounded), flush events, release the Lease, complete. */
  private stop(reason: string, bySignal: boolean): void {
    if (this.phase !== 'running') return;
    const { scheduler, shutdownTimeout } = this.settings;
    this.phase = 'draining';
    this.exitWhenStopped = bySignal;
    this.drainStartedAt = scheduler.now();
    this.emit({ type: 'stopping', time: scheduler.now(), reason });
    this.log.info({ reason, shutdownTimeoutMs: shutdownTimeout }, 'stopping');
    this.readiness.stopping = true;
    this.evaluate();
    this.drain$.next();
    this.drainTimer = scheduler.schedule(() => this.afterDrain(), shutdownTimeout);
    this.drained();
  }

  /** Called whenever a controller ends: the drain is over once every controller has. */
  private drained(): void {
    if (this.phase === 'draining' && this.controllers.every((c) => c.done)) this.afterDrain();
  }

  private afterDrain(): void {
    if (this.phase !== 'draining') return;
    this.phase = 'releasing';
    this.drainTimer?.unsubscribe();
    const { scheduler, shutdownTimeout } = this.settings;
    // A pipeline that ignored the manager's stop$ is cut off here, at the deadline.
    const stuck = this.controllers.filter((c) => !c.done);
    for (const controller of stuck) {
      controller.subscription?.unsubscribe();
      controller.done = true;
    }
    const clean = stuck.length === 0 && this.cancelled === 0 && this.failure === undefined;
    this.clean = clean;
    this.emit({ type: 'drained', time: scheduler.now(), clean, cancelled: this.cancelled });
    this.log.info(
      { clean, cancelled: this.cancelled, ...(stuck.length ? { cutOff: stuck.map((c) => c.definition.name) } : {}) },
      'drained',
    );
    const release = (): void => {
      if (this.phase !== 'releasing') return;
      if (this.leaderRunning) this.release$.next();
      else this.finish();
    };
    if (this.recorder === undefined) {
      release();
      return;
    }
    const timeoutMs = Math.max(0, shutdownTimeout - (scheduler.now() - this.drainStartedAt));
    this.teardown.add(
      this.recorder.close({ timeoutMs }).subscribe({
        next: (result) =>
          this.log[result.complete ? 'info' : 'warn'](
            { complete: result.complete, pending: result.pending },
            'events flushed',
          ),
        error: () => release(),
        complete: () => release(),
      }),
    );
  }

  private finish(): void {
    // The shards' Leases are released as their runs drain; the stop ends once they all are.
    if (this.phase !== 'releasing' || this.shardsRunning) return;
    const { clean } = this;
    this.phase = 'stopped';
    this.emit({ type: 'stopped', time: this.settings.scheduler.now(), clean });
    this.log.info({ clean }, 'stopped');
    const exit = this.exitWhenStopped;
    if (this.failure !== undefined) this.out.error(this.failure);
    else this.out.complete();
    if (exit) this.settings.exit(clean ? 0 : 1);
  }

  /** A second signal: no more waiting. */
  private exitNow(signal: string): void {
    this.log.warn({ signal }, 'second signal: exiting now');
    this.settings.exit(1);
    this.abort(new Error(`manager: stopped at once by a second ${signal}`));
  }

  /** Stops at once with `error`. */
  private abort(error: Error): void {
    if (this.phase === 'stopped') return;
    this.phase = 'stopped';
    this.log.error({ error }, 'manager failed');
    this.out.error(error);
  }

  private emit(event: ManagerEvent): void {
    if (!this.out.closed) this.out.next(event);
  }

  private evaluate(): void {
    if (this.phase === 'starting' || this.phase === 'stopped') return;
    const { scheduler } = this.settings;
    const now = scheduler.now();
    const verdict = this.readiness.verdict(now);
    if (!this.syncedReported && this.readiness.allSynced()) {
      this.syncedReported = true;
      this.emit({ type: 'synced', time: now, informers: this.readiness.names() });
      this.log.info({ informers: this.readiness.names() }, 'caches synced');
    }
    if (verdict.ready !== this.ready) {
      this.ready = verdict.ready;
      this.emit({ type: 'ready', time: now, ready: verdict.ready, reasons: verdict.reasons });
      if (verdict.ready) this.log.info({}, 'ready');
      else this.log.warn({ reasons: verdict.reasons }, 'not ready');
    }
    this.readinessTimer?.unsubscribe();
    const next = this.readiness.nextChange(now);
    this.readinessTimer = next === undefined ? undefined : scheduler.schedule(() => this.evaluate(), next - now);
  }

  /**
   * The metrics hook of controller `name`'s operators: its metrics, when the manager keeps them, and one log record
   * per run (from the operator's own report of how the run ended).
   */
  private runHook(name: string, metrics: ControllerMetrics | undefined): ReconcileMetrics {
    const log = this.log;
    return bothMetrics(metrics, {
      outcome: (run, next) => logOutcome(log, name, run, next),
      staleRead: (key, staleRead) => logStaleRead(log, name, key, staleRead),
    })!;
  }

  private async readyChecks(): Promise<CheckResult[]> {
    const builtIn = this.readiness.verdict(this.settings.scheduler.now()).checks;
    const shards = this.shards === undefined ? [] : [this.shards.readyCheck()];
    return [
      ...builtIn,
      ...shards,
      ...(await runChecks(this.settings.health.readyChecks, this.settings.health.checkTimeout)),
    ];
  }

  private async healthChecks(): Promise<CheckResult[]> {
    return [
      ['ping', undefined],
      ...(await runChecks(this.settings.health.healthChecks, this.settings.health.checkTimeout)),
    ];
  }
}

function tagged<K extends string>(
  tag: K,
  address$: Observable<ServerAddress>,
): Observable<readonly [K, ServerAddress]> {
  return new Observable((subscriber) =>
    address$.subscribe({
      next: (address) => subscriber.next([tag, address] as const),
      error: (error: unknown) => subscriber.error(error),
    }),
  );
}

/** A health handler that says nothing: for informers whose status the manager logs itself. */
function quiet(): void {}
