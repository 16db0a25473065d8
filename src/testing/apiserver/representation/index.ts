/**
 * What a response carries and how it is written: content negotiation (object, PartialObjectMetadata, Table),
 * the object at the requested version, printer columns, and JSON serialized once per stored object.
 * @module
 */
export { atVersion, negotiate, prefersProtobuf, represent, toTable } from './negotiate.js';
export type { Representation } from './negotiate.js';
export { itemsWithoutTypeMeta, toJson } from './serialize.js';
