/** Bounded polling for specs that wait on real I/O: the examples' specs share it. */
export { waitFor, waitForAsync } from '../../examples/shared/wait.js';
