/**
 * The picture of a failing run: a shrunk simulation failure rendered as HTML, opened in headless Chromium, which
 * lays out its runs, writes and faults; and the page's escaping and links.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { V1ConfigMap } from '@kubernetes/client-node';
import * as fc from 'fast-check';
import { concat, defer, EMPTY, toArray } from 'rxjs';
import { reconcile, resourceClient, toKeys, type ControllerDefinition } from '../../../src/index.js';
import { simulate, traceHtml, type SimulationWorld, type Workload } from '../../../src/testing/index.js';

const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const config = (name: string): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
});
const workload: Workload<V1ConfigMap> = {
  resource: CONFIG_MAP,
  minSteps: 1,
  maxSteps: 3,
  step: fc.constantFrom('a', 'b').map((name) => ({ op: 'create' as const, object: config(name) })),
};
/** Takes `<name>-1` as proof that `<name>-2` exists too: a crash between the two writes breaks it. */
const together: ControllerDefinition = {
  name: 'together',
  start: ({ informers, scheduler, connection }) => {
    const configs = informers.for<V1ConfigMap>(CONFIG_MAP, { namespace: 'default' });
    const client = resourceClient<V1ConfigMap>(connection, CONFIG_MAP, { scheduler }).inNamespace('default');
    return configs.events$.pipe(
      toKeys(),
      reconcile(
        ({ key, object }) => {
          const name = key.split('/')[1]!;
          if (object === undefined || name.includes('-') || configs.current().get(`${key}-1`) !== undefined)
            return EMPTY;
          const create = (n: string) => defer(() => client.create(config(`${name}-${n}`)));
          return concat(create('1'), create('2')).pipe(toArray());
        },
        { lookup: configs, gate: configs.synced$, scheduler },
      ),
    );
  },
};
const pairsExist = ({ server }: SimulationWorld): true | string => {
  const names = server(CONFIG_MAP, 'default').map((c) => c.metadata?.name ?? '');
  const broken = names.filter((n) => n.endsWith('-1') && !names.includes(`${n.slice(0, -2)}-2`));
  return broken.length === 0 || `missing the pair of ${broken.join(', ')}`;
};
const failure = () =>
  simulate(together, {
    seed: 3,
    runs: 30,
    duration: 10_000,
    settle: 10_000,
    workload,
    faults: { kinds: ['crash'], min: 1, max: 2 },
    invariants: { desired: pairsExist },
  });

/** Chromium, when the machine has it. */
/** Debian's chromium, as the dashboard's browser spec uses it; `RXKUBE_CHROMIUM` names another. */
const CHROMIUM =
  process.env.RXKUBE_CHROMIUM ||
  ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find(existsSync);

describe('traceHtml', function () {
  this.timeout(120_000);

  it('draws a failing run: its runs, writes and faults, and each violation linked to the steps that led to it', () => {
    const report = failure();
    const html = traceHtml(report.failure ? { trace: report.failure.trace, failure: report.failure } : report);
    expect(report.ok).to.equal(false);
    expect(html).to.match(/^<!doctype html>/);
    expect(html).to.contain('class="run"');
    expect(html).to.contain('class="write"');
    expect(html).to.contain('class="fault"');
    expect(html).to.match(
      /<li class="violation">desired state does not hold: missing the pair of a-1<ul><li><a href="#m\d+">\d+ create default\/a /,
    );
    expect(traceHtml({ trace: report.failure!.trace, failure: report.failure! })).to.equal(html);
  });

  it('escapes every text of the trace', () => {
    const html = traceHtml({ trace: ['5 create default/<b>x</b> {}', '6 started default/<b>#1'], violations: ['<i>'] });
    expect(html).not.to.contain('<b>');
    expect(html).not.to.contain('<i>');
    expect(html).to.contain('&#60;b&#62;');
  });

  it('draws a recording: watch events per object and reconcile runs', () => {
    const recording = [
      JSON.stringify({ t: 0, kind: 'watch', stream: 'v1/ConfigMap', event: { type: 'ADDED', object: config('a') } }),
      JSON.stringify({
        t: 1,
        kind: 'reconcile',
        event: { type: 'started', key: 'default/a', attempt: 1, reasons: [] },
      }),
      JSON.stringify({
        t: 3,
        kind: 'reconcile',
        event: { type: 'succeeded', key: 'default/a', attempt: 1, reasons: [] },
      }),
    ];
    const html = traceHtml({ recording });
    expect(html).to.contain('class="watch"');
    expect(html).to.match(/class="run" data-t="1" x="[\d.]+" y="\d+" width="[\d.]+"/);
  });

  it('renders in headless Chromium: a screenshot, and its runs and faults laid out', () => {
    if (CHROMIUM === undefined) {
      throw new Error(
        "no Chromium: install Debian's package (apt-get install -y chromium; .ci/run does) or set RXKUBE_CHROMIUM",
      );
    }
    const report = failure();
    const directory = mkdtempSync(join(tmpdir(), 'rxkube-trace-'));
    try {
      const page = join(directory, 'trace.html');
      const shot = join(directory, 'trace.png');
      writeFileSync(page, traceHtml({ trace: report.failure!.trace, failure: report.failure! }));
      const flags = [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--hide-scrollbars',
        `--user-data-dir=${directory}/profile`,
      ];
      const run = (extra: string[]): string =>
        execFileSync(CHROMIUM, [...flags, ...extra, `file://${page}`], {
          timeout: 90_000,
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore'],
        });
      run([`--screenshot=${shot}`, '--window-size=1280,800']);
      const png = readFileSync(shot);
      expect(png.subarray(1, 4).toString()).to.equal('PNG');
      const dom = run(['--dump-dom']);
      const stamp = /data-rendered="([^"]*)"/.exec(dom)?.[1]?.replace(/&quot;/g, '"');
      const rendered = JSON.parse(stamp!) as Record<string, number>;
      const count = (kind: string) =>
        (traceHtml({ trace: report.failure!.trace }).match(new RegExp(`class="${kind}[" ]`, 'g')) ?? []).length;
      expect(rendered['runs']).to.equal(count('run')).and.be.greaterThan(0);
      expect(rendered['faults']).to.equal(count('fault')).and.be.greaterThan(0);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
