/** Kubernetes protobuf for the in-memory API server: the envelope and the vendored upstream message definitions. */
export { decodeProtobuf, encodeProtobuf, protobufMediaType, protobufType, ProtobufError } from './codec.js';
