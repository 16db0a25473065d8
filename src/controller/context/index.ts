/**
 * The one context a controller is written against (`ControllerContext`), a controller written once as a function of
 * it (`ControllerDefinition`), and `startController`, the host of one controller on its own.
 * @packageDocumentation
 */
export { controllerContext, type ContextHost } from './context.js';
export { checkDefinition, hostController, startController, type StartControllerOptions } from './start.js';
export type { ContextReconcile, ControllerContext, ControllerDefinition, ControllerShards } from './types.js';
