/**
 * Where errors caught from user code go, so a stream can survive them without hiding them.
 */
import { config } from 'rxjs';

/**
 * Reports an error that a stream chose to survive.
 *
 * Goes to `handler` when given; otherwise (or when `handler` itself throws) to RxJS's `config.onUnhandledError`
 * when one is set, so an app that already routes stray errors keeps one place for them; otherwise it becomes a
 * process warning (`process.emitWarning`, printed on stderr).
 *
 * # Guarantees
 * - Never throws and never crashes the process.
 */
export function reportError(error: Error, handler?: (error: Error) => void): void {
  for (const candidate of [handler, config.onUnhandledError]) {
    if (!candidate) continue;
    try {
      candidate(error);
      return;
    } catch {
      // Try the next destination: the error must still be seen somewhere.
    }
  }
  process.emitWarning(error);
}
