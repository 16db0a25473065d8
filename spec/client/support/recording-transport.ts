/** A transport that records every request and how it ended, around a real one: the examples' specs share it. */
export { recordingTransport, type RecordedRequest } from '../../../examples/shared/recording-transport.js';
