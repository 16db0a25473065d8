/**
 * Record and replay: tap a live controller's WatchEvents and ReconcileEvents into JSON lines, and replay them in
 * virtual time to find where a controller's decisions change.
 * @module
 */
export { recorder, streamName, type Recorder, type RecorderOptions, type RecordingSink } from './recorder.js';
export { parseRecording, type RecordLine, type RecordedReconcileEvent } from './format.js';
export {
  replay,
  type ReplayDecision,
  type ReplayDivergence,
  type ReplayOptions,
  type ReplayReport,
} from './replay.js';
