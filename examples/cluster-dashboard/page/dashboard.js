// The cluster dashboard's page script: one EventSource, whose every `state` event is the whole picture (see
// examples/cluster-dashboard/state.ts, DashboardState), drawn with plain DOM calls. No framework and no build step:
// the picture is small and bounded, and redrawing it a few times a second costs the browser less than a diff would.
// Text from the cluster goes through textContent only, never innerHTML.

/** @type {EventSource | undefined} */
let source;
/** The latest picture, and when it arrived (performance.now()), to age timestamps between pictures. */
let latest;
let receivedAt = 0;
/** Connections lost so far, and whether the current one is lost (errors repeat while the server is away). */
let drops = 0;
let lost = false;

/** The server's clock now, estimated from the latest picture: ages do not depend on the browser's clock. */
const serverNow = () => (latest === undefined ? Date.now() : latest.now + (performance.now() - receivedAt));

/** `el('td', { 'data-field': 'pods' }, '3')`: an element with attributes and text or element children. */
function el(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== undefined && value !== null && value !== false) element.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

/** How long ago `at` (server ms) was, shortly: `0.4 s`, `12 s`, `3 min`. */
function ago(at) {
  const ms = Math.max(0, serverNow() - at);
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  return `${Math.round(ms / 60_000)} min`;
}

/** A span whose text is refreshed every second as the time since `at` grows. */
const age = (at, suffix = ' ago') => el('span', { 'data-since': at, 'data-suffix': suffix }, `${ago(at)}${suffix}`);

const ms = (value) =>
  value < 1 ? `${value.toFixed(2)} ms` : value < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(1)} s`;

function replaceRows(table, rows) {
  table.tBodies[0].replaceChildren(...rows);
}

function drawObjects(state) {
  const kinds = document.getElementById('kinds');
  kinds.tHead.replaceChildren(
    el(
      'tr',
      {},
      el('th', {}, 'kind'),
      el('th', {}, 'total'),
      state.namespaces.map((ns) => el('th', {}, ns)),
    ),
  );
  replaceRows(
    kinds,
    state.kinds.map((kind) =>
      el(
        'tr',
        { 'data-kind': kind.kind },
        el('th', {}, kind.kind, kind.synced ? null : el('span', { class: 'muted' }, ' (syncing)')),
        el('td', { 'data-field': 'total' }, kind.total),
        state.namespaces.map((ns) => el('td', { 'data-namespace': ns }, kind.perNamespace[ns] ?? 0)),
      ),
    ),
  );
  const phases = document.getElementById('phases');
  phases.tHead.replaceChildren(
    el(
      'tr',
      {},
      el('th', {}, 'namespace'),
      state.phases.map((phase) => el('th', {}, phase)),
    ),
  );
  replaceRows(
    phases,
    state.podPhases.map((row) =>
      el(
        'tr',
        { 'data-namespace': row.namespace },
        el('th', {}, row.namespace),
        state.phases.map((phase) => el('td', { 'data-phase': phase }, row.phases[phase] ?? 0)),
      ),
    ),
  );
}

function drawPodSets(state) {
  document.getElementById('podset-count').textContent =
    state.podSetTotal > state.podSets.length
      ? `(${state.podSets.length} of ${state.podSetTotal})`
      : `(${state.podSetTotal})`;
  replaceRows(
    document.getElementById('podsets'),
    state.podSets.map((set) =>
      el(
        'tr',
        { 'data-key': set.key, class: set.failure ? 'failing' : null },
        el('th', {}, set.key),
        el('td', { 'data-field': 'desired' }, set.desired),
        el('td', { 'data-field': 'ready', class: set.ready === set.desired ? 'ok' : 'warn' }, set.ready),
        el('td', { 'data-field': 'pods' }, set.pods),
        el(
          'td',
          { 'data-field': 'pod-list' },
          set.podList.map((pod) =>
            el(
              'span',
              { class: `pod ${pod.terminating ? 'terminating' : pod.ready ? 'ready' : 'pending'}`, title: pod.phase },
              pod.name,
            ),
          ),
          set.pods > set.podList.length
            ? el('span', { class: 'muted' }, ` and ${set.pods - set.podList.length} more`)
            : null,
          set.failure ? el('div', { class: 'error', 'data-field': 'failure' }, set.failure) : null,
        ),
      ),
    ),
  );
}

function keyTable(caption, headers, rows, empty) {
  return el(
    'table',
    { class: 'keys' },
    el('caption', {}, caption),
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        headers.map((header) => el('th', {}, header)),
      ),
    ),
    el(
      'tbody',
      {},
      rows.length > 0 ? rows : el('tr', {}, el('td', { colspan: headers.length, class: 'muted' }, empty)),
    ),
  );
}

function drawQueues(state) {
  document.getElementById('queues').replaceChildren(
    ...state.queues.map((queue) => {
      const more = (list) =>
        list.total > list.keys.length ? ` (first ${list.keys.length} of ${list.total})` : ` (${list.total})`;
      // Priorities: the queue has none yet. When the metrics hook reports them, `queue.priorities` carries them and
      // this column shows each waiting key's priority; until then it says so.
      const priority = (key) => (queue.priorities ? String(queue.priorities[key.key] ?? '') : '—');
      return el(
        'div',
        { class: 'queue', 'data-controller': queue.controller },
        el(
          'h3',
          {},
          `controller ${queue.controller}`,
          queue.open ? null : el('span', { class: 'muted' }, ' (not running)'),
        ),
        el(
          'p',
          { class: 'facts' },
          el('span', {}, 'depth ', el('b', { 'data-field': 'depth' }, queue.depth)),
          el(
            'span',
            {},
            'workers ',
            el('b', { 'data-field': 'workers' }, `${queue.activeWorkers} / ${queue.concurrency ?? '∞'}`),
          ),
          el('span', {}, 'longest running ', el('b', {}, ms(queue.longestRunningMs))),
        ),
        el(
          'div',
          { class: 'key-tables' },
          keyTable(
            `waiting${more(queue.waiting)}`,
            ['key', 'waiting for', 'priority'],
            queue.waiting.keys.map((key) =>
              el(
                'tr',
                { 'data-key': key.key },
                el('td', {}, key.key),
                el('td', {}, age(key.since, '')),
                el('td', { class: 'muted', title: 'the queue has no priorities yet' }, priority(key)),
              ),
            ),
            'no key waits',
          ),
          keyTable(
            `running${more(queue.running)}`,
            ['key', 'for'],
            queue.running.keys.map((key) =>
              el('tr', { 'data-key': key.key }, el('td', {}, key.key), el('td', {}, age(key.since, ''))),
            ),
            'nothing runs',
          ),
          keyTable(
            `retry or requeue later${more(queue.delayed)}`,
            ['key', 'why', 'due'],
            queue.delayed.keys.map((key) =>
              el(
                'tr',
                { 'data-key': key.key },
                el('td', {}, key.key),
                el('td', {}, key.why),
                el('td', {}, key.at > serverNow() ? `in ${ms(key.at - serverNow())}` : 'now'),
              ),
            ),
            'none',
          ),
        ),
      );
    }),
  );
}

function drawRuns(state) {
  replaceRows(
    document.getElementById('runs'),
    state.runs.map((run) =>
      el(
        'tr',
        { 'data-key': run.key, class: run.outcome },
        el('td', {}, age(run.at)),
        el('td', {}, run.key),
        el('td', { 'data-field': 'outcome' }, run.outcome, run.attempt > 1 ? ` (attempt ${run.attempt})` : ''),
        el(
          'td',
          { class: 'reasons' },
          run.reasons.join('; '),
          run.moreReasons > 0 ? el('span', { class: 'muted' }, ` and ${run.moreReasons} more`) : null,
        ),
        el('td', {}, ms(run.durationMs)),
        el('td', {}, ms(run.queueWaitMs)),
        el(
          'td',
          { class: run.error ? 'error' : 'muted', 'data-field': 'error' },
          [run.error, run.followedBy].filter(Boolean).join(' → '),
        ),
      ),
    ),
  );
}

function drawLeader(state) {
  const { leader } = state;
  const badge = document.getElementById('leading');
  badge.textContent = !leader.enabled ? 'leader election off' : leader.leading ? 'leading' : 'standby (not leading)';
  badge.dataset.state = leader.leading ? 'leading' : 'standby';
  const facts = [
    ['Lease', leader.lease ?? 'none (leader election off: this process always leads)'],
    ['this process', leader.leading ? 'leads' : 'does not lead'],
    ...(leader.holder ? [['holder', leader.holder]] : []),
    ...(leader.renewedAt ? [['renewed', age(leader.renewedAt)]] : []),
    ...(leader.transitions !== undefined ? [['transitions', leader.transitions]] : []),
  ];
  document
    .getElementById('leader-facts')
    .replaceChildren(...facts.flatMap(([term, value]) => [el('dt', {}, term), el('dd', {}, value)]));
  document
    .getElementById('leader-history')
    .replaceChildren(
      ...leader.history.map((change) =>
        el('li', {}, change.leading ? 'became leader ' : 'stopped leading ', age(change.at)),
      ),
    );
}

function drawInformers(state) {
  document
    .getElementById('informers')
    .replaceChildren(
      ...state.informers.map((informer) =>
        el(
          'li',
          { 'data-state': informer.state },
          el('b', {}, informer.name),
          ` ${informer.state}`,
          informer.detail ? el('span', { class: 'error' }, ` ${informer.detail}`) : null,
        ),
      ),
    );
}

function draw(state) {
  latest = state;
  receivedAt = performance.now();
  document.title = `${state.title}: rxkube dashboard`;
  document.getElementById('title').textContent = state.title;
  document.getElementById('stopping').hidden = !state.stopping;
  drawObjects(state);
  drawPodSets(state);
  drawQueues(state);
  drawRuns(state);
  drawLeader(state);
  drawInformers(state);
  document.getElementById('clients').textContent =
    `${state.clients} browser${state.clients === 1 ? '' : 's'} connected`;
  document.body.dataset.frames = String(Number(document.body.dataset.frames) + 1);
  refreshAges();
}

/** Ages move between pictures too: every second, from the server's clock as estimated. */
function refreshAges() {
  for (const span of document.querySelectorAll('[data-since]'))
    span.textContent = `${ago(Number(span.dataset.since))}${span.dataset.suffix}`;
  if (latest !== undefined) document.getElementById('updated').textContent = `picture of ${ago(latest.now)} ago`;
}

function setConnection(state, text) {
  const badge = document.getElementById('connection');
  badge.dataset.state = state;
  badge.textContent = text;
}

/**
 * Connects, and reconnects for ever: EventSource retries by itself after a network error (the server asks for 1 s);
 * after a refusal (503 when too many browsers are connected) it gives up, so this opens a new one 2 s later. Every
 * picture is whole, so the first one after a reconnect brings the page up to date: nothing needs replaying.
 */
function connect() {
  source = new EventSource('/events');
  source.addEventListener('state', (event) => draw(JSON.parse(event.data)));
  source.addEventListener('open', () => {
    lost = false;
    setConnection('live', drops === 0 ? 'live' : `live (reconnected ${drops}×)`);
  });
  source.addEventListener('error', () => {
    if (!lost) drops += 1;
    lost = true;
    if (source.readyState === EventSource.CLOSED) {
      setConnection('closed', 'disconnected; retrying in 2 s');
      setTimeout(connect, 2000);
    } else {
      setConnection('reconnecting', 'reconnecting…');
    }
  });
}

setInterval(refreshAges, 1000);
connect();
