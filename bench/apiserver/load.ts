/**
 * Load generator for bench/apiserver/serve.ts, run in its own process so the server under test keeps its own core.
 *
 * `load.ts <url> <mode> <count> <concurrency>` prints one JSON line `{ ok, failed, seconds }`.
 * Modes: `create` (POST pods; an optional 5th argument offsets the pod indexes), `get` (GET one pod by name), `update` (merge-patch a label),
 * `apply` (server-side apply of the same label change, field manager `bench`), `list` (page through
 * every pod with limit=500), `watch` (count events on each of `concurrency` watches from an RV), `initial`
 * (`concurrency` watches without an RV, until each got `count` ADDED), `floor` (GET the URL as-is: used against the bare node:http floor server).
 */
import http from 'node:http';
import { makePod } from './pods.js';

const [url, mode, countText, concurrencyText] = process.argv.slice(2) as [string, string, string, string];
const count = Number(countText);
const concurrency = Number(concurrencyText);
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });

function request(
  method: string,
  path: string,
  body?: string,
  contentType = 'application/json',
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      new URL(path, url),
      { method, agent, headers: body ? { 'content-type': contentType } : {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function runPool(
  total: number,
  task: (index: number) => Promise<boolean>,
): Promise<{ ok: number; failed: number }> {
  let next = 0;
  let ok = 0;
  let failed = 0;
  const worker = async (): Promise<void> => {
    while (next < total) {
      const index = next++;
      if (await task(index).catch(() => false)) ok += 1;
      else failed += 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { ok, failed };
}

const podsPath = '/api/v1/namespaces/default/pods';
const started = performance.now();
let result: { ok: number; failed: number };
switch (mode) {
  case 'create': {
    // Optional 5th argument: index of the first pod, so a second round of creates uses fresh names.
    const first = Number(process.argv[6] ?? 0);
    result = await runPool(
      count,
      async (i) => (await request('POST', podsPath, JSON.stringify(makePod(first + i)))).status === 201,
    );
    break;
  }
  case 'get':
    result = await runPool(
      count,
      async (i) => (await request('GET', `${podsPath}/${makePod(i % 1000).metadata.name}`)).status === 200,
    );
    break;
  case 'update':
    result = await runPool(count, async (i) => {
      const patch = JSON.stringify({ metadata: { labels: { revision: String(i) } } });
      const name = makePod(i % 1000).metadata.name;
      return (await request('PATCH', `${podsPath}/${name}`, patch, 'application/merge-patch+json')).status === 200;
    });
    break;
  case 'apply':
    result = await runPool(count, async (i) => {
      const name = makePod(i % 1000).metadata.name;
      const config = JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, labels: { revision: String(i) } },
      });
      return (
        (
          await request(
            'PATCH',
            `${podsPath}/${name}?fieldManager=bench&force=true`,
            config,
            'application/apply-patch+yaml',
          )
        ).status === 200
      );
    });
    break;
  case 'list': {
    let items = 0;
    let pages = 0;
    let token: string | undefined;
    do {
      const query = `?limit=500${token ? `&continue=${encodeURIComponent(token)}` : ''}`;
      const page = JSON.parse((await request('GET', `${podsPath}${query}`)).body) as {
        items: unknown[];
        metadata: { continue?: string };
      };
      items += page.items.length;
      pages += 1;
      token = page.metadata.continue || undefined;
    } while (token);
    result = { ok: items, failed: items === count ? 0 : 1 };
    process.stderr.write(`listed ${items} items in ${pages} pages\n`);
    break;
  }
  case 'watch': {
    // `count` events expected on each of `concurrency` watches; prints `watching` once all are open.
    const rv = process.argv[6] ?? '';
    let done = 0;
    let firstEventAt = 0;
    const finished = new Promise<void>((resolve) => {
      for (let w = 0; w < concurrency; w++) {
        let seen = 0;
        let buffered = '';
        const req = http.get(new URL(`${podsPath}?watch=1&resourceVersion=${rv}`, url), { agent: false }, (res) => {
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            buffered += chunk;
            let newline: number;
            while ((newline = buffered.indexOf('\n')) >= 0) {
              buffered = buffered.slice(newline + 1);
              if (firstEventAt === 0) firstEventAt = performance.now();
              if (++seen === count) {
                req.destroy();
                if (++done === concurrency) resolve();
              }
            }
          });
        });
        req.on('error', () => undefined);
      }
    });
    console.log('watching');
    await finished;
    result = { ok: done * count, failed: 0 };
    console.log(JSON.stringify({ ...result, seconds: (performance.now() - firstEventAt) / 1000 }));
    process.exit(0);
  }
  case 'initial': {
    // `concurrency` watches opened at once without a resourceVersion: time until each has all `count` ADDED lines.
    let done = 0;
    let complete = 0;
    const opened = performance.now();
    const finished = new Promise<void>((resolve) => {
      for (let w = 0; w < concurrency; w++) {
        let seen = 0;
        let tail = '';
        let over = false;
        const finish = (): void => {
          if (over) return;
          over = true;
          if (seen >= count) complete += 1;
          if (++done === concurrency) resolve();
        };
        const req = http.get(new URL(`${podsPath}?watch=1`, url), { agent: false }, (res) => {
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            const text = tail + chunk;
            let from = 0;
            let newline: number;
            while ((newline = text.indexOf('\n', from)) >= 0) {
              from = newline + 1;
              if (++seen === count) {
                finish();
                req.destroy();
                return;
              }
            }
            tail = text.slice(from);
          });
          // A server that ends the stream early (e.g. as a slow consumer) fails this watch instead of hanging.
          res.on('end', finish);
        });
        req.on('error', finish);
      }
    });
    await finished;
    console.log(
      JSON.stringify({
        ok: complete * count,
        failed: concurrency - complete,
        seconds: (performance.now() - opened) / 1000,
      }),
    );
    process.exit(0);
  }
  case 'floor':
    result = await runPool(count, async () => (await request('GET', '/')).status === 200);
    break;
  default:
    throw new Error(`unknown mode ${mode}`);
}
agent.destroy();
console.log(JSON.stringify({ ...result, seconds: (performance.now() - started) / 1000 }));
