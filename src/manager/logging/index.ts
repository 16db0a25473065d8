/**
 * The manager's structured logs: a pluggable logger, a JSON default, and redaction of credentials and Secret data.
 * @packageDocumentation
 */
export {
  jsonLogger,
  safeStringify,
  silentLogger,
  type JsonLoggerOptions,
  type LogFields,
  type LogLevel,
  type ManagerLogger,
} from './logger.js';
export { MIN_LITERAL_LENGTH, REDACTED, errorFields, redactingLogger, redactor } from './redact.js';
export { logEventReport, logInformerStatus, logLeaderEvent, logOutcome, logStaleRead } from './records.js';
