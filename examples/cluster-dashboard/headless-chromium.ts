/**
 * Headless Chromium for the dashboard's browser spec, driven over the Chrome DevTools Protocol on a pipe
 * (`--remote-debugging-pipe`: JSON messages ended by a NUL byte, on the browser's file descriptors 3 and 4).
 *
 * Why not Playwright: the spec needs six DevTools commands (open a page, navigate, evaluate, screenshot, close),
 * which this file sends in about a hundred lines. `playwright-core` would add a dependency of several megabytes
 * whose browser management must then be kept from downloading anything; a pipe needs no port, no WebSocket and no
 * package. The browser is Debian's `chromium` package (`/usr/bin/chromium`, or `RXKUBE_CHROMIUM`); `.ci/run`
 * installs it when it is missing, and a missing browser fails the spec, saying how to install it.
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

/** Where Debian's `chromium` package puts the browser; `RXKUBE_CHROMIUM` names another. */
export const CHROMIUM_PATH = process.env.RXKUBE_CHROMIUM || '/usr/bin/chromium';

/** Headless, no sandbox (it runs as root in CI containers), and nothing that talks to the network on its own. */
export const CHROMIUM_FLAGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  '--hide-scrollbars',
  '--mute-audio',
];

/** How long one DevTools command may take, ms. */
const COMMAND_TIMEOUT_MS = 15_000;

interface Message {
  readonly id?: number;
  readonly method?: string;
  readonly params?: Record<string, unknown>;
  readonly result?: Record<string, unknown>;
  readonly error?: { readonly message: string };
  readonly sessionId?: string;
}

/** A tab of the browser. */
export interface HeadlessPage {
  /** The value of `expression` in the page (awaited when it is a Promise); throws what the page threw. */
  evaluate<T>(expression: string): Promise<T>;
  /** Polls `expression` until it is truthy and returns its value; rejects after `limitMs` naming `what`. */
  waitFor<T>(expression: string, what: string, limitMs?: number): Promise<T>;
  /** Writes a PNG of the whole page to `path`; returns its size in bytes. */
  screenshot(path: string): Promise<number>;
  /** Uncaught exceptions and `console.error` calls of the page so far. */
  errors(): readonly string[];
}

/** A running headless Chromium. */
export interface HeadlessChromium {
  /** Opens `url` in a new tab of `width` × `height` CSS pixels, once it has loaded. */
  open(url: string, size?: { readonly width: number; readonly height: number }): Promise<HeadlessPage>;
  /** Closes the browser (killing it if it does not exit within 5 s) and removes its profile. */
  close(): Promise<void>;
}

/**
 * Starts Debian's Chromium headless with a fresh profile.
 *
 * # Guarantees
 * - Throws, saying how to install it, when there is no browser at {@link CHROMIUM_PATH}: the spec fails rather
 *   than skips.
 * - Every command rejects after {@link COMMAND_TIMEOUT_MS}, and at once if the browser exits.
 */
export async function launchChromium(): Promise<HeadlessChromium> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `no Chromium at ${CHROMIUM_PATH}: install Debian's package (apt-get install -y chromium; .ci/run does) or set RXKUBE_CHROMIUM`,
    );
  }
  const profile = mkdtempSync(join(tmpdir(), 'rxkube-chromium-'));
  const child = spawn(
    CHROMIUM_PATH,
    [...CHROMIUM_FLAGS, `--user-data-dir=${profile}`, '--remote-debugging-pipe', 'about:blank'],
    {
      stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  (child.stderr as Readable).setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const connection = new DevTools(child, () => stderr);
  try {
    await connection.send('Browser.getVersion');
  } catch (error) {
    child.kill('SIGKILL');
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
  return {
    open: async (url, size = { width: 1400, height: 1000 }) => {
      const { targetId } = (await connection.send('Target.createTarget', { url: 'about:blank' })) as {
        targetId: string;
      };
      const { sessionId } = (await connection.send('Target.attachToTarget', { targetId, flatten: true })) as {
        sessionId: string;
      };
      const errors: string[] = [];
      connection.listen(sessionId, (message) => {
        if (message.method === 'Runtime.exceptionThrown') {
          const details = message.params?.exceptionDetails as
            | { text?: string; exception?: { description?: string } }
            | undefined;
          errors.push(details?.exception?.description ?? details?.text ?? 'exception');
        } else if (message.method === 'Runtime.consoleAPICalled' && message.params?.type === 'error') {
          errors.push(
            (message.params.args as Array<{ value?: unknown; description?: string }>)
              .map((arg) => String(arg.value ?? arg.description))
              .join(' '),
          );
        }
      });
      await connection.send('Runtime.enable', {}, sessionId);
      await connection.send('Page.enable', {}, sessionId);
      await connection.send(
        'Emulation.setDeviceMetricsOverride',
        { ...size, deviceScaleFactor: 1, mobile: false },
        sessionId,
      );
      const loaded = connection.next(sessionId, 'Page.loadEventFired');
      await connection.send('Page.navigate', { url }, sessionId);
      await loaded;
      const evaluate = async <T>(expression: string): Promise<T> => {
        const { result, exceptionDetails } = (await connection.send(
          'Runtime.evaluate',
          { expression, returnByValue: true, awaitPromise: true },
          sessionId,
        )) as {
          result: { value?: T };
          exceptionDetails?: { text: string; exception?: { description?: string } };
        };
        if (exceptionDetails !== undefined)
          throw new Error(`in the page: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
        return result.value as T;
      };
      return {
        evaluate,
        waitFor: async <T>(expression: string, what: string, limitMs = 10_000): Promise<T> => {
          const deadline = Date.now() + limitMs;
          for (;;) {
            const value = await evaluate<T>(expression);
            if (value) return value;
            if (Date.now() > deadline)
              throw new Error(`timed out after ${limitMs} ms waiting for the page to show ${what}`);
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        },
        screenshot: async (path) => {
          const { cssContentSize } = (await connection.send('Page.getLayoutMetrics', {}, sessionId)) as {
            cssContentSize: { width: number; height: number };
          };
          const { data } = (await connection.send(
            'Page.captureScreenshot',
            {
              format: 'png',
              captureBeyondViewport: true,
              clip: {
                x: 0,
                y: 0,
                width: Math.ceil(cssContentSize.width),
                height: Math.ceil(cssContentSize.height),
                scale: 1,
              },
            },
            sessionId,
          )) as { data: string };
          const png = Buffer.from(data, 'base64');
          writeFileSync(path, png);
          return png.length;
        },
        errors: () => errors,
      };
    },
    close: async () => {
      const exited = once(child, 'exit');
      connection.send('Browser.close').catch(() => {});
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      if (child.exitCode === null && child.signalCode === null) await exited;
      clearTimeout(timer);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** The protocol over the pipe: commands with ids and their answers, and events by session. */
class DevTools {
  private nextId = 0;
  private buffer = Buffer.alloc(0);
  private readonly pending = new Map<
    number,
    { resolve: (result: Record<string, unknown>) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }
  >();
  private readonly listeners = new Map<string, Array<(message: Message) => void>>();
  /** Who waits for an event: told when the browser exits. */
  private readonly waiters = new Set<(error: Error) => void>();
  private exited: Error | undefined;

  constructor(
    private readonly child: ChildProcess,
    private readonly stderr: () => string,
  ) {
    (child.stdio[4] as Readable).on('data', (chunk: Buffer) => this.receive(chunk));
    child.once('exit', (code, signal) => {
      this.exited = new Error(`Chromium exited (${code ?? signal}); its last output:\n${this.stderr()}`);
      for (const { reject, timer } of this.pending.values()) {
        clearTimeout(timer);
        reject(this.exited);
      }
      this.pending.clear();
      for (const fail of [...this.waiters]) fail(this.exited);
    });
  }

  send(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Record<string, unknown>> {
    if (this.exited !== undefined) return Promise.reject(this.exited);
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(
          new Error(
            `Chromium did not answer ${method} within ${COMMAND_TIMEOUT_MS} ms; its last output:\n${this.stderr()}`,
          ),
        );
      }, COMMAND_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
      (this.child.stdio[3] as Writable).write(
        `${JSON.stringify({ id, method, params, ...(sessionId === undefined ? {} : { sessionId }) })}\0`,
      );
    });
  }

  /** Calls `listener` with every event of `sessionId`. */
  listen(sessionId: string, listener: (message: Message) => void): void {
    this.listeners.set(sessionId, [...(this.listeners.get(sessionId) ?? []), listener]);
  }

  /**
   * Resolves with the next `method` event of `sessionId`; rejects after {@link COMMAND_TIMEOUT_MS}, or at once if the
   * browser exits, so a page that never loads fails the spec instead of hanging it.
   */
  next(sessionId: string, method: string): Promise<Message> {
    if (this.exited !== undefined) return Promise.reject(this.exited);
    return new Promise((resolve, reject) => {
      const settle = (): void => {
        clearTimeout(timer);
        this.waiters.delete(fail);
        this.listeners.set(
          sessionId,
          (this.listeners.get(sessionId) ?? []).filter((known) => known !== listener),
        );
      };
      const fail = (error: Error): void => {
        settle();
        reject(error);
      };
      const listener = (message: Message): void => {
        if (message.method !== method) return;
        settle();
        resolve(message);
      };
      const timer = setTimeout(
        () =>
          fail(
            new Error(`Chromium sent no ${method} within ${COMMAND_TIMEOUT_MS} ms; its last output:\n${this.stderr()}`),
          ),
        COMMAND_TIMEOUT_MS,
      );
      this.waiters.add(fail);
      this.listen(sessionId, listener);
    });
  }

  private receive(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (let end = this.buffer.indexOf(0); end >= 0; end = this.buffer.indexOf(0)) {
      const message = JSON.parse(this.buffer.subarray(0, end).toString('utf8')) as Message;
      this.buffer = this.buffer.subarray(end + 1);
      if (message.id !== undefined) {
        const waiting = this.pending.get(message.id);
        if (waiting === undefined) continue;
        this.pending.delete(message.id);
        clearTimeout(waiting.timer);
        if (message.error !== undefined) waiting.reject(new Error(`Chromium refused: ${message.error.message}`));
        else waiting.resolve(message.result ?? {});
      } else if (message.sessionId !== undefined) {
        for (const listener of this.listeners.get(message.sessionId) ?? []) listener(message);
      }
    }
  }
}
