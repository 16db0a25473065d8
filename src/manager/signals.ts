/**
 * Process signals as an Observable, so the manager's shutdown can be driven by a Subject in tests.
 */
import { Observable } from 'rxjs';

/** The signals a manager stops on: what the kubelet sends (SIGTERM) and Ctrl-C (SIGINT). */
export const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/**
 * SIGTERM and SIGINT received by this process, by name.
 *
 * # Guarantees
 * - Listeners are added on subscribe and removed on unsubscribe; while subscribed, these signals no longer end the
 *   process by Node's default handling (the subscriber decides).
 */
export function processSignals(): Observable<string> {
  return new Observable<string>((subscriber) => {
    const handlers = STOP_SIGNALS.map((signal) => {
      const handler = (): void => subscriber.next(signal);
      process.on(signal, handler);
      return [signal, handler] as const;
    });
    return () => {
      for (const [signal, handler] of handlers) process.off(signal, handler);
    };
  });
}
